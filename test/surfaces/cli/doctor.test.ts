import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { stringify } from "yaml";
import { parse } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import type { BusLayoutFile } from "../../../firmware-sim/bus/BusLayout.js";
import { startBusSimulator, type RunningBusSimulator } from "../../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../../firmware-sim/EffectsLog.js";
import { socatOnPath } from "../../../firmware-sim/simOptions.js";
import { encodeImage } from "../../../src/imaging/encodeImage.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { latencyTimerOf } from "../../../src/surfaces/cli/doctor/deviceChecks.js";
import type { DoctorCheck } from "../../../src/surfaces/cli/doctor/DoctorCheck.js";
import { judgeControllers } from "../../../src/surfaces/cli/doctor/rosChecks.js";
import { runCli } from "../../../src/surfaces/cli/runCli.js";
import { captureIo } from "../../support/captureIo.js";

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A copy of so101.yaml with a file camera, in a folder of its own; returns the paths. */
function setUp(): { dir: string; config: string; frame: string; data: string } {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-doctor-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const raw = parse(readFileSync("config/so101.yaml", "utf8")) as { arm: { urdf: string }; cameras?: unknown };
  raw.arm.urdf = resolve("config", raw.arm.urdf);
  const frame = join(dir, "desk.jpg");
  raw.cameras = [{ name: "desk", source: { file: frame }, stale_after_ms: 2000 }];
  const config = join(dir, "arm.yaml");
  writeFileSync(config, stringify(raw));
  writeFileSync(frame, encodeImage({ width: 64, height: 48, data: Buffer.alloc(64 * 48 * 4, 0x80) }, "jpeg"));
  const data = join(dir, "data");
  mkdirSync(data);
  return { dir, config, frame, data };
}

async function bus(layout?: BusLayoutFile): Promise<RunningBusSimulator> {
  const sim = await startBusSimulator({
    bus: "feetech_sts",
    armConfig: loadConfig("config/so101.yaml"),
    link: "pty",
    seed: 1,
    effects: new MemoryEffects(),
    ...(layout ? { layout } : {}),
  });
  cleanup.push(() => sim.close());
  return sim;
}

async function doctor(args: string[]): Promise<{ code: number; checks: DoctorCheck[] }> {
  const io = captureIo();
  const code = await runCli(["doctor", ...args, "--json"], io);
  await new Promise((r) => setImmediate(r));
  const report = JSON.parse(io.out().trim().split("\n").pop() ?? "{}") as { checks: DoctorCheck[] };
  return { code, checks: report.checks };
}

const byStatus = (checks: DoctorCheck[], status: DoctorCheck["status"]): DoctorCheck[] =>
  checks.filter((c) => c.status === status);

describe.skipIf(!socatOnPath())("armbridge doctor on a simulated SO-101 behind a PTY (skipped without socat)", () => {
  it("a healthy set-up: every check OK, exit 0", async () => {
    const { config, data, frame } = setUp();
    // A live camera keeps writing frames (a loaded machine may take seconds to reach the camera check).
    const bytes = readFileSync(frame);
    const writer = setInterval(() => {
      writeFileSync(`${frame}.tmp`, bytes);
      renameSync(`${frame}.tmp`, frame);
    }, 200);
    cleanup.push(async () => clearInterval(writer));
    const sim = await bus();
    const r = await doctor(["--config", config, "--serial", sim.link, "--data", data]);
    expect(byStatus(r.checks, "WARN").concat(byStatus(r.checks, "FAIL")), JSON.stringify(r.checks, null, 1)).toEqual(
      [],
    );
    expect(r.code).toBe(0);
    const names = r.checks.map((c) => c.check);
    for (const n of [
      "config",
      "device",
      "latency timer",
      "ledger",
      "link",
      "servo 1",
      "servo 6",
      "servo errors",
      "supply",
      "temperature",
      "calibration",
      "envelope",
      "camera desk",
    ])
      expect(names).toContain(n);
  });

  it("a servo missing and a stale camera: FAIL lines naming each, exit 1", async () => {
    const { config, frame, data } = setUp();
    const old = (Date.now() - 10_000) / 1000;
    utimesSync(frame, old, old);
    const sim = await bus({
      servos: ["shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_roll", "gripper"].map((joint) => ({ joint })),
    });
    const r = await doctor(["--config", config, "--serial", sim.link, "--data", data]);
    expect(r.code).toBe(1);
    const failed = byStatus(r.checks, "FAIL");
    expect(failed.find((c) => c.check === "servo 4")?.detail).toMatch(/wrist_flex: no answer/);
    expect(failed.find((c) => c.check === "camera desk")?.detail).toMatch(/older than its stale_after_ms/);
    for (const c of failed) expect(c.fix).toBeTruthy();
  });

  // As root every device is writable, so the doctor then runs as `nobody` (the built CLI), for whom the PTY is not.
  const root = process.getuid?.() === 0;
  const cli = resolve("dist/src/surfaces/cli/main.js");
  it.skipIf(root && !existsSync(cli))(
    "an unwritable device: FAIL naming it with the dialout fix, exit 1 (as root: needs dist, npm run build)",
    async () => {
      const { dir, config, data } = setUp();
      const sim = await bus();
      const device = realpathSync(sim.link);
      let r: { code: number; checks: DoctorCheck[] };
      if (root) {
        for (const d of [dir, dirname(sim.link)]) chmodSync(d, 0o755);
        chmodSync(data, 0o777);
        const child = spawn(
          process.execPath,
          [cli, "doctor", "--config", config, "--serial", sim.link, "--data", data, "--json"],
          { uid: 65534, gid: 65534, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
        );
        let out = "";
        child.stdout.on("data", (b: Buffer) => (out += b.toString()));
        const [code] = (await once(child, "exit")) as [number];
        r = { code, checks: (JSON.parse(out.trim().split("\n").pop() ?? "{}") as { checks: DoctorCheck[] }).checks };
      } else {
        chmodSync(device, 0o444);
        cleanup.push(() => chmodSync(device, 0o620));
        r = await doctor(["--config", config, "--serial", sim.link, "--data", data]);
      }
      expect(r.code).toBe(1);
      const line = r.checks.find((c) => c.check === "device");
      expect(line?.status, JSON.stringify(r.checks, null, 1)).toBe("FAIL");
      expect(line?.detail).toContain(sim.link);
      expect(line?.detail).toMatch(/not writable/);
      expect(line?.fix).toMatch(/usermod -aG|log out|access/);
    },
  );
});

describe("doctor's checks on their own", () => {
  it("reads an FTDI adapter's latency timer from sysfs: 16 ms is a warning with the fix, 1 ms is OK, none is OK", () => {
    const sys = mkdtempSync(join(tmpdir(), "armbridge-sysfs-"));
    cleanup.push(() => rmSync(sys, { recursive: true, force: true }));
    const dir = join(sys, "bus", "usb-serial", "devices", "ttyUSB0");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "latency_timer"), "16\n");
    const slow = latencyTimerOf("ttyUSB0", sys);
    expect(slow.status).toBe("WARN");
    expect(slow.fix).toContain("echo 1 | sudo tee");
    writeFileSync(join(dir, "latency_timer"), "1\n");
    expect(latencyTimerOf("ttyUSB0", sys).status).toBe("OK");
    expect(latencyTimerOf("ttyACM0", sys)).toMatchObject({
      status: "OK",
      detail: expect.stringMatching(/no latency timer/),
    });
  });

  it("judges controllers by controller_manager's list: loaded and active, else FAIL naming which", () => {
    expect(judgeControllers(["arm_controller"], [{ name: "arm_controller", state: "active" }]).status).toBe("OK");
    const inactive = judgeControllers(
      ["arm_controller", "gripper_controller"],
      [{ name: "arm_controller", state: "inactive" }],
    );
    expect(inactive.status).toBe("FAIL");
    expect(inactive.detail).toMatch(/arm_controller is inactive; gripper_controller is not loaded/);
  });

  it("--ros without a sourced ROS 2: FAIL with the source command, exit 1", async () => {
    const io = captureIo({ PATH: process.env.PATH ?? "" });
    const code = await runCli(["doctor", "--ros", "--json"], io);
    await new Promise((r) => setImmediate(r));
    const { checks } = JSON.parse(io.out().trim().split("\n").pop() ?? "{}") as { checks: DoctorCheck[] };
    expect(code).toBe(1);
    expect(checks.find((c) => c.check === "ros")).toMatchObject({
      status: "FAIL",
      fix: expect.stringMatching(/source \/opt\/ros/),
    });
  });
});
