import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import type { DoctorCheck } from "../../src/surfaces/cli/doctor/DoctorCheck.js";
import { runCli } from "../../src/surfaces/cli/runCli.js";
import { createServoBusTransport } from "../../src/transport/bus/index.js";
import { protocolNamed, type BusProtocolName } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";
import { captureIo } from "../support/captureIo.js";
import { startReplyShapingProxy, type ReplyShaping, type ReplyShapingProxy } from "../support/ReplyShapingProxy.js";

/**
 * The set-up tools against servos whose replies come late, in pieces, out
 * of order or twice: every reading must be the simulator's true register,
 * every servo that answered must be found. Judged by the simulator's own
 * registers, not by what the tools print about themselves.
 */

const SHIPPED: Record<BusProtocolName, string> = {
  feetech_sts: "config/so101.yaml",
  dynamixel_2: "config/koch-follower.yaml",
};
/** Past the set-up tools' 40 ms latency margin, so each held reply arrives after its instruction's time ran out. */
const HELD_MS = 55;

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function simulated(
  protocol: BusProtocolName,
  shaping: ReplyShaping,
): Promise<{ sim: RunningBusSimulator; proxy: ReplyShapingProxy }> {
  const sim = await startBusSimulator({
    bus: protocol,
    armConfig: loadConfig(SHIPPED[protocol]),
    link: "tcp",
    port: 0,
    seed: 5,
    effects: new MemoryEffects(),
  });
  cleanup.push(() => sim.close());
  const proxy = await startReplyShapingProxy(sim.link, protocolNamed(protocol), shaping);
  cleanup.push(() => proxy.close());
  return { sim, proxy };
}

/** Every `every`-th reply from `from` held back `ms`. */
function holding(from: number, every: number, upTo: number, ms = HELD_MS): Map<number, number> {
  const out = new Map<number, number>();
  for (let n = from; n < upTo; n += every) out.set(n, ms);
  return out;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-held-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of the shipped config the CLI may edit, URDF path made absolute. */
function configCopy(protocol: BusProtocolName): string {
  const text = readFileSync(SHIPPED[protocol], "utf8").replace(
    /urdf: (urdf\/\S+)/,
    (_m, rel: string) => `urdf: ${resolve("config", rel)}`,
  );
  const path = join(tempDir(), "arm.yaml");
  writeFileSync(path, text);
  return path;
}

describe.each(["feetech_sts", "dynamixel_2"] as const)(
  "set-up tools on a %s bus whose replies are held, split and reordered",
  (protocol) => {
    const table = protocolNamed(protocol).table;
    const setup = table.setup;

    // doctor: 10 pings, then per servo a ping, (Feetech) a read of its model, two of its position; then its health registers.
    const firstHealthRead = 10 + 6 * (setup.pingReportsModel ? 3 : 4);
    const plans: [string, ReplyShaping][] = [
      ["one reply held back (its supply voltage read)", { hold: new Map([[firstHealthRead + 1, HELD_MS]]) }],
      ["every sixth reply held back, every reply in 3-byte pieces", { hold: holding(9, 6, 200), splitBytes: 3 }],
    ];
    it.each(plans)(
      "doctor reads each servo's true supply and temperature against its true limits, and finds every servo: %s",
      async (_what, shaping) => {
        const { sim, proxy } = await simulated(protocol, shaping);
        const io = captureIo();
        await runCli(
          ["doctor", "--config", configCopy(protocol), "--serial", proxy.link, "--data", tempDir(), "--json"],
          io,
        );
        await new Promise((r) => setImmediate(r));
        const checks = (JSON.parse(io.out().trim().split("\n").pop() ?? "{}") as { checks: DoctorCheck[] }).checks;
        const byName = (name: string): DoctorCheck | undefined => checks.find((c) => c.check === name);
        const servos = sim.bus.all;
        // The truth: every servo's own registers in the simulator.
        const span = (values: number[], digits: number, unit: string): string => {
          const [lo, hi] = [Math.min(...values), Math.max(...values)];
          return lo === hi ? `${lo.toFixed(digits)} ${unit}` : `${lo.toFixed(digits)}–${hi.toFixed(digits)} ${unit}`;
        };
        const volts = servos.map((s) => s.get(setup.presentVoltage) * setup.voltageUnit);
        const temps = servos.map((s) => s.get(setup.presentTemperature));
        expect(byName("supply"), JSON.stringify(byName("supply"))).toMatchObject({
          status: "OK",
          detail: `${servos.length} servos at ${span(volts, 1, "V")}, each inside its own limits`,
        });
        expect(byName("temperature"), JSON.stringify(byName("temperature"))).toMatchObject({
          status: "OK",
          detail: `${servos.length} servos at ${span(temps, 0, "°C")}, each inside its own limits`,
        });
        for (const s of servos)
          expect(byName(`servo ${s.id}`)?.status, JSON.stringify(byName(`servo ${s.id}`))).toBe("OK");
        expect(byName("servo errors")?.status, JSON.stringify(byName("servo errors"))).toBe("OK");
        expect(proxy.replies).toBeGreaterThan(firstHealthRead);
      },
      60_000,
    );

    it("bus scan finds every servo with its true model and position", async () => {
      const { sim, proxy } = await simulated(protocol, { hold: holding(2, 4, 100), splitBytes: 2 });
      const io = captureIo();
      const code = await runCli(
        ["bus", "scan", "--serial", proxy.link, "--protocol", protocol, "--baud", "1000000", "--json"],
        io,
      );
      await new Promise((r) => setImmediate(r));
      expect(code, io.err()).toBe(0);
      const json = JSON.parse(io.out().trim().split("\n").pop() ?? "{}") as {
        servos: { id: number; model_number: number; position: number }[];
        hints: string[];
      };
      const truth = sim.bus.all
        .map((s) => ({ id: s.id, model_number: s.get(table.modelNumber), position: s.get(table.presentPosition) }))
        .sort((a, b) => a.id - b.id);
      expect(json.servos.map((s) => ({ id: s.id, model_number: s.model_number, position: s.position }))).toEqual(truth);
      expect(json.hints).toEqual([]);
    }, 60_000);

    it("calibrate's zero step records each servo's true count as its centre", async () => {
      const { sim, proxy } = await simulated(protocol, { hold: holding(2, 11, 40), splitBytes: 4, reorderWindowMs: 1 });
      const configPath = configCopy(protocol);
      const io = captureIo();
      const code = await runCli(
        ["calibrate", "--config", configPath, "--serial", proxy.link, "--step", "zero", "--yes", "--json"],
        io,
      );
      expect(code, io.err()).toBe(0);
      const zero = io
        .out()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { event?: string; counts?: Record<string, number> })
        .find((e) => e.event === "zero");
      const truth = Object.fromEntries(sim.bus.all.map((s) => [s.axis.name, s.get(table.presentPosition)]));
      expect(zero?.counts).toEqual(truth);
    }, 60_000);
  },
);

describe.each(["feetech_sts", "dynamixel_2"] as const)(
  "the servo-bus transport on a %s bus whose replies are held, split, reordered and repeated",
  (protocol) => {
    it("reads every joint where the simulator has it and drives a motion to its target", async () => {
      const config = busTestConfig(protocol, { observe: { budget_ms: 400, max_ms: 4000 } });
      const effects = new MemoryEffects();
      const sim = await startBusSimulator({ bus: protocol, armConfig: config, link: "tcp", port: 0, seed: 7, effects });
      cleanup.push(() => sim.close());
      // Past the transport's 60 ms reply margin, so each held reply arrives after its instruction's time ran out.
      const proxy = await startReplyShapingProxy(sim.link, protocolNamed(protocol), {
        hold: holding(40, 41, 600, 75),
        splitBytes: 3,
        reorderWindowMs: 1,
        duplicate: new Set(Array.from({ length: 60 }, (_, i) => 31 + i * 7)),
      });
      cleanup.push(() => proxy.close());
      const transport = createServoBusTransport(config, proxy.link);
      cleanup.push(() => transport.close());
      await transport.open(AbortSignal.timeout(8000));
      const joints = config.arm.joints.map((j) => j.name);
      const [a, b] = [joints[1]!, joints[2]!];
      const moved = await transport.runMotion(
        { actionId: "act_held_1", targets: { [a]: 0.4, [b]: -0.3 }, speed: 0.5 },
        AbortSignal.timeout(10_000),
      );
      expect(moved.kind === "ended" && moved.record.state, JSON.stringify(moved)).toBe("reached");
      expect(sim.bus.truePosition(a)).toBeCloseTo(0.4, 2);
      expect(sim.bus.truePosition(b)).toBeCloseTo(-0.3, 2);
      expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
      // At rest, every status the transport reports must be the simulator's truth, read after read.
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 60));
        const status = transport.latestStatus()!;
        for (const j of joints)
          expect(status.axes[j]?.position, `${j} in status ${i}`).toBeCloseTo(sim.bus.truePosition(j)!, 2);
        expect(status.faults).toEqual([]);
      }
      expect(proxy.replies).toBeGreaterThan(60);
    }, 60_000);
  },
);
