import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { BusLayoutFile } from "../../firmware-sim/bus/BusLayout.js";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { createTransport } from "../../src/bridge/createTransport.js";
import type { BusCalibrationFile } from "../../src/config/busCalibrationFile.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../src/errors.js";
import { silentLogger } from "../../src/observability/logger.js";
import { runCli } from "../../src/surfaces/cli/runCli.js";
import type { BusProtocolName } from "../../src/protocol/bus/index.js";
import { captureIo, type CapturedIo } from "../support/captureIo.js";

const SHIPPED: Record<BusProtocolName, string> = {
  feetech_sts: "config/so101.yaml",
  dynamixel_2: "config/koch-follower.yaml",
};

/** How the simulated arm is really built: horns off-centre, elbow_flex and wrist_roll mounted reversed, the gripper's own travel. */
const TRUTH = {
  shoulder_pan: { center: 2100, sign: 1 },
  shoulder_lift: { center: 1985, sign: 1 },
  elbow_flex: { center: 2230, sign: -1 },
  wrist_flex: { center: 2048, sign: 1 },
  wrist_roll: { center: 2000, sign: -1 },
} as const;
const GRIPPER = { closed: 2000, open: 3100 };
const JOINTS = Object.keys(TRUTH) as (keyof typeof TRUTH)[];

const layout: BusLayoutFile = {
  servos: [...JOINTS.map((joint) => ({ joint, ...TRUTH[joint] })), { joint: "gripper", ...GRIPPER }],
};

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A copy of the shipped config in a folder of its own (calibrate refuses to edit a shipped one), URDF path made absolute. */
function configCopy(protocol: BusProtocolName): string {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-calibrate-"));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  const text = readFileSync(SHIPPED[protocol], "utf8").replace(
    /urdf: (urdf\/\S+)/,
    (_m, rel: string) => `urdf: ${resolve("config", rel)}`,
  );
  const path = join(dir, "arm.yaml");
  writeFileSync(path, text);
  return path;
}

const countAt = (center: number, sign: number, rad: number): number => center + ((rad * 4096) / (2 * Math.PI)) * sign;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Turns the named axes by hand, all at once, and waits until the slowest is there. */
async function byHand(sim: RunningBusSimulator, moves: Record<string, number>, durationMs: number): Promise<void> {
  const took = Object.entries(moves).map(([name, position]) => sim.bus.turnJointByHand(name, position, durationMs));
  await sleep(Math.max(...took) + 50);
}

/** The JSON events a --json run printed so far. */
function events(io: CapturedIo): Record<string, unknown>[] {
  return io
    .out()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function until(what: string, check: () => boolean, io: CapturedIo, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; the command said:\n${io.err()}`);
    await sleep(25);
  }
}

describe.each(["feetech_sts", "dynamixel_2"] as const)(
  "armbridge calibrate on a simulated %s arm built off-centre, two joints reversed",
  (protocol) => {
    it("a scripted run (zero with --yes, range ended by Enter once the readout shows the sweep, the jogs' questions answered on stdin from the effects log) writes a calibration whose counts → radians → counts round trip matches the simulator within one count, reversed joints negative; the bridge refuses the arm before and drives it true after; a range swept short of the config's travel is refused as serve would refuse it", async () => {
      const effects = new MemoryEffects();
      const sim: RunningBusSimulator = await startBusSimulator({
        bus: protocol,
        armConfig: loadConfig(SHIPPED[protocol]),
        link: "rfc2217",
        port: 0,
        seed: 3,
        effects,
        layout,
      });
      cleanup.push(() => sim.close());
      const configPath = configCopy(protocol);
      // The operator sweeps each joint to its end stops, a little past the travel the config allows it: the calibration must cover that travel.
      const limits = Object.fromEntries(
        loadConfig(configPath).arm.joints.map((j) => [j.name, { min: j.min - 0.05, max: j.max + 0.05 }]),
      );
      const end = (j: string, which: "min" | "max"): number => limits[j]![which];

      // Before: the shipped defaults do not describe this arm, and the bridge says so before any torque write.
      const refused = await createTransport(loadConfig(configPath), { kind: "serial", link: sim.link }, silentLogger, {
        configLabel: configPath,
      }).catch((e: unknown) => e);
      expect(isArmbridgeError(refused, "ARMB_ERR_BUS_NOT_CALIBRATED")).toBe(true);
      expect(sim.bus.all.every((s) => !s.torque)).toBe(true);

      // zero: the operator holds the arm in its zero pose (the truth's 0 rad, the gripper closed).
      await byHand(sim, { ...Object.fromEntries(JOINTS.map((j) => [j, 0])), gripper: 0 }, 200);
      const zeroIo = captureIo();
      expect(
        await runCli(
          ["calibrate", "--config", configPath, "--serial", sim.link, "--step", "zero", "--yes", "--json"],
          zeroIo,
        ),
        zeroIo.err(),
      ).toBe(0);

      // range: the operator sweeps each joint end to end and opens the gripper, watching the readout, then presses Enter.
      const rangeIo = captureIo();
      const ranging = runCli(
        ["calibrate", "--config", configPath, "--serial", sim.link, "--step", "range", "--json"],
        rangeIo,
      );
      await until(
        "the range step to record",
        () => events(rangeIo).some((e) => e.event === "step" && e.state === "recording"),
        rangeIo,
      );
      await byHand(sim, { ...Object.fromEntries(JOINTS.map((j) => [j, end(j, "min")])), gripper: 1 }, 300);
      await byHand(sim, Object.fromEntries(JOINTS.map((j) => [j, end(j, "max")])), 500);
      await byHand(sim, { ...Object.fromEntries(JOINTS.map((j) => [j, 0])), gripper: 0 }, 250);
      await until(
        "the readout to show every joint's whole sweep",
        () => {
          const last = events(rangeIo)
            .filter((e) => e.event === "readout")
            .pop() as { axes?: Record<string, { min: number; max: number }> } | undefined;
          return JOINTS.every((j) => {
            const r = last?.axes?.[j];
            const ends = [
              countAt(TRUTH[j].center, TRUTH[j].sign, end(j, "min")),
              countAt(TRUTH[j].center, TRUTH[j].sign, end(j, "max")),
            ];
            return r !== undefined && r.min <= Math.min(...ends) + 1 && r.max >= Math.max(...ends) - 1;
          });
        },
        rangeIo,
      );
      rangeIo.stdin.write("\n");
      expect(await ranging, rangeIo.err()).toBe(0);

      // direction: each jog is judged the way a person at the arm would, here by the simulator's ground truth.
      const dirIo = captureIo();
      const directing = runCli(
        ["calibrate", "--config", configPath, "--serial", sim.link, "--step", "direction", "--yes", "--json"],
        dirIo,
      );
      let answered = 0;
      while (answered < JOINTS.length) {
        await until(
          `question ${answered + 1}`,
          () => events(dirIo).filter((e) => e.event === "question").length > answered,
          dirIo,
        );
        const jog = events(dirIo).filter((e) => e.event === "jog")[answered] as {
          joint: string;
          from: number;
          to: number;
        };
        const moved = [...effects.events]
          .reverse()
          .find((e) => e.event === "motion_start" && e.joints.includes(jog.joint)) as {
          from: Record<string, number>;
          to: Record<string, number>;
        };
        const truly = moved.to[jog.joint]! - moved.from[jog.joint]!;
        // The question described a URDF rotation of the jog's count change; "yes" when the joint truly turned that way.
        dirIo.stdin.write(Math.sign(truly) === Math.sign(jog.to - jog.from) ? "y\n" : "n\n");
        answered++;
      }
      expect(await directing, dirIo.err()).toBe(0);

      // The file the config now points to.
      const file = JSON.parse(
        readFileSync(join(configPath, "..", "arm.calibration.json"), "utf8"),
      ) as BusCalibrationFile;
      expect(readFileSync(configPath, "utf8")).toMatch(/calibration: arm\.calibration\.json/);
      for (const j of JOINTS) {
        const a = file.axes[j];
        if (a?.kind !== "joint") throw new Error(`${j} missing`);
        expect(a.sign, j).toBe(TRUTH[j].sign);
        for (const count of [a.range_min!, a.center!, a.range_max!, 1500, 2600]) {
          const rad = ((count - a.center!) * 2 * Math.PI * a.sign!) / a.counts_per_rev;
          expect(
            Math.abs(countAt(TRUTH[j].center, TRUTH[j].sign, rad) - count),
            `${j} at ${count}`,
          ).toBeLessThanOrEqual(1);
        }
      }
      const g = file.axes.gripper;
      expect(
        g?.kind === "gripper" && Math.abs(g.closed! - GRIPPER.closed) <= 1 && Math.abs(g.open! - GRIPPER.open) <= 1,
      ).toBe(true);

      // After: the bridge accepts the arm, and a commanded joint goes where the simulator's truth says.
      const calibrated = loadConfig(configPath);
      const { transport } = await createTransport(calibrated, { kind: "serial", link: sim.link }, silentLogger, {
        configLabel: configPath,
      });
      cleanup.push(() => transport.close());
      await transport.open(AbortSignal.timeout(5000));
      const moved = await transport.runMotion(
        { actionId: "act_calibrated_1", targets: { elbow_flex: 0.5, wrist_roll: -0.4 }, speed: 0.5 },
        AbortSignal.timeout(8000),
      );
      expect(moved.kind === "ended" && moved.record.state, JSON.stringify(moved)).toBe("reached");
      expect(sim.bus.truePosition("elbow_flex")).toBeCloseTo(0.5, 2);
      expect(sim.bus.truePosition("wrist_roll")).toBeCloseTo(-0.4, 2);
      await transport.close();

      // A range swept short of the config's travel gives a file serve would refuse: calibrate says so, naming the joint, and exits 1.
      const shortIo = captureIo();
      const shortFile = join(configPath, "..", "short.calibration.json");
      copyFileSync(join(configPath, "..", "arm.calibration.json"), shortFile);
      const shortRanges = [
        ...JOINTS.flatMap((j) => ["--range", `${j}=${TRUTH[j].center - 300}:${TRUTH[j].center + 300}`]),
        "--range",
        `gripper=${GRIPPER.closed}:${GRIPPER.open}`,
      ];
      const short = await runCli(
        [
          "calibrate",
          "--config",
          configPath,
          "--serial",
          sim.link,
          "--step",
          "range",
          ...shortRanges,
          "--range-seconds",
          "0.3",
          "--out",
          shortFile,
          "--json",
        ],
        shortIo,
      );
      expect(short, shortIo.err()).toBe(1);
      const refusal = events(shortIo).find((e) => e.event === "refused") as { issues: string } | undefined;
      expect(refusal?.issues, shortIo.err()).toContain("axes.shoulder_pan.range_min: joint shoulder_pan's min");
    }, 120_000);
  },
);
