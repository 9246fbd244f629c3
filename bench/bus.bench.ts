/**
 * npm run bench:bus — the servo-bus path against armbridge-sim --bus as its
 * own process over TCP, with baud emulation, for 6 servos (so101.yaml on
 * Feetech STS, koch-follower.yaml on Dynamixel 2.0) at 1 Mbaud and 115200:
 *
 * - status loop rate achieved, and its ceiling from the bytes each cycle puts
 *   on the wire (sync read instruction + one status packet per servo, per block
 *   read; Dynamixel's 64..70 counts by the share of cycles that read it);
 * - settlement lag: call settled − the motion's real end (effects log), p50/p99;
 * - E1 (four moves of one joint in one batch: overlaps) and E3 (timeout 200 ms
 *   → observe, with --fail-rate 0.05: duplicates, unknowns), judged by the
 *   effects log.
 *
 * Prints figures; asserts nothing. BENCH_SEED changes the seed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { packageRoot } from "../src/config/packageRoot.js";
import { loadConfig } from "../src/config/loadConfig.js";
import type { ArmConfig } from "../src/config/ArmConfig.js";
import type { Executor } from "../src/executor/Executor.js";
import { composeExecutor } from "../src/bridge/composeExecutor.js";
import { IntentLedger } from "../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../src/tools/defaultTools.js";
import { createServoBusTransport } from "../src/transport/bus/index.js";
import type { ServoRecovery } from "../src/transport/Transport.js";
import {
  protocolNamed,
  statusCycleWireBytes,
  syncReadWireBytes,
  type BusProtocolName,
} from "../src/protocol/bus/index.js";
import { servoAxesOf } from "../src/protocol/bus/servoAxes.js";
import { overlapsIn, quantile, readEffects, type EffectLine } from "../firmware-sim/effectsJudge.js";
import { linkForUrl } from "../src/transport/link/openLink.js";
import { TimedLink } from "./bus/TimedLink.js";
import { killLiveSims, startSimProcess } from "./seed/SimProcess.js";
import { formatTable, ms } from "./seed/table.js";

const SEED = Number(process.env.BENCH_SEED ?? 42);
const BUSES: readonly [BusProtocolName, string, string][] = [
  ["feetech_sts", "so101.yaml", "wrist_flex"],
  ["dynamixel_2", "koch-follower.yaml", "wrist_flex"],
];

function configFor(file: string, baud: number, moveTimeoutMs: number): ArmConfig {
  return loadConfig(join(packageRoot(), "config", file), {
    edit: (raw) => ({
      ...raw,
      bus: { ...(raw.bus as Record<string, unknown>), baud },
      timeouts_ms: { move_joints: moveTimeoutMs },
    }),
  });
}

/**
 * The config file the simulator reads, its servos set to `baud`: a servo
 * listens at its own Baud_Rate, which the simulator takes from the config's
 * bus.baud (--baud only paces the line), so a row at another baud needs the
 * servos there too. Relative paths (the URDF) are made absolute.
 */
function simConfigAt(dir: string, file: string, baud: number): string {
  const raw = parse(readFileSync(join(packageRoot(), "config", file), "utf8")) as {
    bus: Record<string, unknown>;
    arm: Record<string, unknown>;
  };
  raw.bus = { ...raw.bus, baud };
  if (typeof raw.arm.urdf === "string") raw.arm = { ...raw.arm, urdf: join(packageRoot(), "config", raw.arm.urdf) };
  const path = join(dir, file);
  writeFileSync(path, stringify(raw));
  return path;
}

async function withBus<T>(
  protocol: BusProtocolName,
  file: string,
  baud: number,
  moveTimeoutMs: number,
  flags: readonly string[],
  body: (w: {
    executor: Executor;
    link: TimedLink;
    config: ArmConfig;
    cycles: () => number;
    blockReads: () => readonly number[];
    conditionReads: () => { readonly present: number; readonly limits: number };
    effects: () => EffectLine[];
    faults: () => readonly string[];
    recover: () => Promise<readonly ServoRecovery[]>;
  }) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-bus-bench-"));
  const effectsLog = join(dir, "effects.jsonl");
  const sim = await startSimProcess({
    link: "tcp",
    seed: SEED,
    effectsLog,
    logFile: join(dir, "sim.log"),
    flags: ["--bus", protocol, "--config", simConfigAt(dir, file, baud), "--baud", String(baud), ...flags],
  });
  const config = configFor(file, baud, moveTimeoutMs);
  const link = new TimedLink(linkForUrl(sim.link, { baudRate: baud }));
  const transport = createServoBusTransport(config, link);
  const ledger = IntentLedger.open(":memory:");
  try {
    await transport.open(AbortSignal.timeout(10_000));
    const executor = composeExecutor({ config, registry: createDefaultTools(config), transport, ledger });
    try {
      return await body({
        executor,
        link,
        config,
        cycles: () => transport.cycles,
        blockReads: () => transport.statusBlockReads,
        conditionReads: () => transport.conditionBlockReads,
        effects: () => readEffects(effectsLog),
        faults: () => transport.latestStatus()?.faults ?? [],
        recover: () => transport.servos.recover({ signal: AbortSignal.timeout(10_000) }),
      });
    } finally {
      executor.close();
    }
  } finally {
    await transport.close();
    ledger.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The rate if host and simulator took no time: baud over the bits one status
 * cycle really puts on the wire. A block read every cycle counts once; an
 * alert-gated one (Dynamixel 64..70) by the share of cycles that read it in
 * the measured window (its period, alerts, gaps), from the transport's own
 * per-block read counts.
 */
function ceilingHz(
  protocol: BusProtocolName,
  servos: number,
  baud: number,
  readsPerCycle: readonly number[],
  condition: { readonly present: number; readonly limits: number },
): number {
  const p = protocolNamed(protocol);
  const c = p.table.condition;
  // The servo-health reads (temperature and voltage, the servos' own limits) ride between cycles: their share of bytes per cycle.
  const conditionBytes =
    (c.presentBlock ? condition.present * syncReadWireBytes(p, c.presentBlock.size, servos) : 0) +
    condition.limits * syncReadWireBytes(p, c.limitsBlock.size, servos);
  return baud / ((statusCycleWireBytes(p, servos, readsPerCycle) + conditionBytes) * 10);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function main(): Promise<void> {
  console.log(
    `bus bench: armbridge-sim --bus as a process over TCP with --baud emulation, 6 servos, seed ${SEED}, node ${process.version}, ${new Date().toISOString()}`,
  );
  const rows: string[][] = [];
  const e3rows: string[][] = [];
  const split: string[][] = [];
  for (const [protocol, file, joint] of BUSES) {
    for (const baud of [1_000_000, 115_200]) {
      const row = await withBus(
        protocol,
        file,
        baud,
        5000,
        [],
        async ({ executor, link, config, cycles, blockReads, conditionReads, effects }) => {
          link.reset();
          const c0 = cycles();
          const r0 = blockReads();
          const k0 = conditionReads();
          const t0 = performance.now();
          await new Promise((r) => setTimeout(r, 2000));
          const done = cycles() - c0;
          const rate = (done * 1000) / (performance.now() - t0);
          const readsPerCycle = blockReads().map((n, i) => (n - (r0[i] ?? 0)) / done);
          const k1 = conditionReads();
          const conditionPerCycle = {
            present: (k1.present - k0.present) / done,
            limits: (k1.limits - k0.limits) / done,
          };
          const hostMs = mean(link.hostGapsMs);
          // A cycle starts with the sync read of the first block read every cycle.
          const p = protocolNamed(protocol);
          const first = p.table.statusBlocks.find((_, i) => i !== p.table.healthBlock)!;
          const opener = p.syncRead(
            first.address,
            first.size,
            servoAxesOf(config).map((a) => a.id),
          );
          // The median cycle: what the loop does when neither process is descheduled (the mean carries the machine's load).
          const medianCycleMs = quantile(
            link.cyclesMsStartingWith((req) => sameBytes(req, opener)),
            0.5,
          );
          const roundTripMs = mean(link.roundTripsMs);
          const settled: number[] = [];
          for (let i = 0; i < 20; i++) {
            await executor.execute(
              [{ id: `lag${i}`, name: "move_joints", args: { positions: { [joint]: i % 2 === 0 ? 0.4 : -0.4 } } }],
              { deadlineMs: 8000 },
            );
            settled.push(Date.now());
          }
          const ends = effects().filter((e) => e.event === "motion_end");
          const lags = settled.flatMap((t, i) => (ends[i] ? [t - ends[i].t] : []));
          const e1 = await executor.execute(
            [0.3, -0.3, 0.2, -0.2].map((p, i) => ({
              id: `e1_${i}`,
              name: "move_joints",
              args: { positions: { [joint]: p } },
            })),
            { deadlineMs: 20_000 },
          );
          const all = effects();
          return {
            rate,
            readsPerCycle,
            conditionPerCycle,
            medianCycleMs,
            hostMs,
            roundTripMs,
            lags,
            e1Overlaps: overlapsIn(all),
            e1Preempted: all.filter(
              (e) => e.event === "motion_end" && String((e as { detail?: string }).detail).startsWith("preempted"),
            ).length,
            e1Done: e1.filter((r) => r.result.status === "done").length,
          };
        },
      );
      const ceiling = ceilingHz(protocol, 6, baud, row.readsPerCycle, row.conditionPerCycle);
      const requestsPerCycle = row.readsPerCycle.reduce((a, b) => a + b, 0);
      const medianRate = 1000 / row.medianCycleMs;
      rows.push([
        protocol,
        String(baud),
        `${row.rate.toFixed(0)} Hz`,
        `${ceiling.toFixed(0)} Hz (${requestsPerCycle.toFixed(2)} reads/cycle)`,
        `${((100 * row.rate) / ceiling).toFixed(0)} %`,
        `${medianRate.toFixed(0)} Hz (${((100 * medianRate) / ceiling).toFixed(0)} %)`,
        ms(quantile(row.lags, 0.5)),
        ms(quantile(row.lags, 0.99)),
        `${row.e1Done}/4 done, ${row.e1Overlaps} overlaps, ${row.e1Preempted} preempted`,
      ]);
      const blocks = requestsPerCycle;
      const cycleMs = 1000 / row.rate;
      const wireMs = 1000 / ceiling;
      const hostMs = row.hostMs * blocks;
      split.push([
        protocol,
        String(baud),
        `${cycleMs.toFixed(3)} ms`,
        `${wireMs.toFixed(3)} ms`,
        `${hostMs.toFixed(3)} ms`,
        `${(row.roundTripMs * blocks - wireMs).toFixed(3)} ms`,
        `${(cycleMs - wireMs - hostMs).toFixed(3)} ms`,
      ]);
    }
    const e3 = await withBus(
      protocol,
      file,
      1_000_000,
      200,
      ["--fail-rate", "0.05"],
      async ({ executor, effects, faults, recover }) => {
        const out: { status: string; starts: number; moved: boolean; timedOut: boolean; recovered: number }[] = [];
        for (let i = 0; i < 60; i++) {
          const before = effects().length;
          const [r] = await executor.execute(
            [{ id: `e3_${i}`, name: "move_joints", args: { positions: { [joint]: i % 2 === 0 ? 1.2 : -1.2 } } }],
            { deadlineMs: 10_000 },
          );
          const result = r!.result;
          if (result.status === "unknown" && result.action_id)
            executor.confirm(result.action_id, { outcome: "not_done", operator: "bus-bench" });
          // The bench plays the operator: a servo that shut down (simulated overload) is recovered
          // deliberately — REBOOT on Dynamixel, a cleared Status on Feetech — before the next trial.
          let recovered = 0;
          for (let w = 0; w < 100 && faults().length > 0; w++) {
            const results = await recover();
            recovered += results.filter((x) => x.outcome === "recovered").length;
            if (faults().length > 0) await new Promise((res) => setTimeout(res, 50));
          }
          const mine = effects().slice(before);
          // Moved: a motion of this trial came to rest away from where it started.
          const moved = mine.some(
            (e) =>
              e.event === "motion_end" &&
              e.from &&
              e.to &&
              Object.entries(e.from).some(([k, v]) => Math.abs((e.to?.[k] ?? v) - v) > 1e-3),
          );
          out.push({
            status: result.status,
            starts: mine.filter((e) => e.event === "motion_start").length,
            moved,
            timedOut: result.timed_out,
            recovered,
          });
        }
        return out;
      },
    );
    const statuses = new Map<string, number>();
    for (const t of e3) statuses.set(t.status, (statuses.get(t.status) ?? 0) + 1);
    e3rows.push([
      protocol,
      `${e3.filter((t) => t.timedOut).length}/${e3.length}`,
      String(e3.filter((t) => t.starts > 1).length),
      String(statuses.get("unknown") ?? 0),
      String(e3.filter((t) => t.status === "failed" && t.moved).length),
      String(e3.reduce((n, t) => n + t.recovered, 0)),
      [...statuses].map(([k, n]) => `${k}×${n}`).join(" "),
    ]);
  }
  console.log(
    "\nStatus loop and settlement (20 sequential moves per row) and E1 (four moves of one joint in one batch)",
  );
  console.log(
    formatTable([
      [
        "protocol",
        "baud",
        "status loop",
        "wire ceiling",
        "of ceiling",
        "at the median cycle",
        "lag p50",
        "lag p99",
        "E1",
      ],
      ...rows,
    ]),
  );
  console.log(
    "\nWhere a status cycle's time goes (means): wire = the ceiling's bytes; host = last reply byte in → next request out, per cycle;",
  );
  console.log(
    "round trip over wire = request out → first reply byte in, less the wire time (the simulator's and the OS's share); rest = cycle − wire − host",
  );
  console.log(formatTable([["protocol", "baud", "cycle", "wire", "host", "round trip over wire", "rest"], ...split]));
  console.log("\nE3  timeout 200 ms → observe, never re-send; --fail-rate 0.05, 60 trials at 1 Mbaud");
  console.log(
    formatTable([
      ["protocol", "timeouts fired", "duplicates", "unknowns", "failed but moved", "operator recoveries", "results"],
      ...e3rows,
    ]),
  );
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

process.once("exit", () => killLiveSims());
main().then(
  () => (process.exitCode = 0),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
