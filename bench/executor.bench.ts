/**
 * npm run bench:executor — what the executor costs per call, over calling the
 * transport directly, with the ledger's fsyncs included (an intent write
 * before the command, a settlement after: SQLite WAL, synchronous=FULL, on a
 * real file in the OS temp folder).
 *
 * The transport is instantaneous (a motion "reaches" its target the moment it
 * is sent), so everything measured is bridge overhead. Calls at concurrency N
 * are N calls in one batch on N disjoint joints (a 64-joint arm), so they are
 * not serialised by the locks — the ledger is what they share.
 *
 * Beside the wall times, the CPU the process spent per call (process.cpuUsage,
 * every thread: SQLite's fsync waits are not CPU): on a shared machine it
 * moves with what the bridge does far more than the wall times do. The event
 * loop's busy time per call is printed too; it counts the time the OS gave the
 * CPU to a neighbour mid-turn, so under load it reads like a wall time. The
 * promises made per call are counted (async_hooks, after the timed runs): a
 * figure no load can move.
 * EXECUTOR_BENCH_LEDGER_DIR puts the ledger in another folder (/dev/shm takes
 * the disk's fsync out of the figures).
 *
 * Prints figures; asserts nothing (machines are noisy: compare within a run).
 */
import { createHook } from "node:async_hooks";
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseConfig } from "../src/config/loadConfig.js";
import { composeExecutor } from "../src/bridge/composeExecutor.js";
import { IntentLedger } from "../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../src/tools/defaultTools.js";
import type {
  ActionRecord,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  Transport,
} from "../src/transport/Transport.js";

const JOINTS = 64;
const ROUNDS: Record<number, number> = { 1: 2000, 8: 300, 64: 40 };
/** Calls run before measuring, so the JIT and SQLite's page cache are warm, as in a long-running bridge. */
const WARMUP_CALLS = 500;
/** Where the ledger's folder is made: the OS temp folder unless EXECUTOR_BENCH_LEDGER_DIR names another. */
const LEDGER_PARENT = process.env.EXECUTOR_BENCH_LEDGER_DIR ?? tmpdir();

/** What one concurrency's calls cost the process, beside their wall times. */
interface CpuFigures {
  readonly n: number;
  /** CPU (user + system, every thread) per call over all rounds, µs. */
  readonly meanUs: number;
  /** The median round's CPU per call, µs: a round descheduled or slowed by a neighbour counts once. */
  readonly medianUs: number;
  /** The event loop's busy time per call, µs. */
  readonly loopBusyUs: number;
}

class InstantArm implements Transport {
  readonly kind = "instant";
  #status: ArmStatus;
  constructor(names: string[]) {
    this.#status = {
      stampMs: Date.now(),
      axes: Object.fromEntries(names.map((n) => [n, { position: 0, velocity: 0, moving: false }])),
      faults: [],
      actions: [],
    };
  }
  async open(): Promise<void> {}
  async close(): Promise<void> {}
  async runMotion(command: MotionCommand): Promise<MotionEnd> {
    const axes = { ...this.#status.axes };
    for (const [k, v] of Object.entries(command.targets)) axes[k] = { position: v, velocity: 0, moving: false };
    this.#status = { ...this.#status, stampMs: Date.now(), axes };
    const record: ActionRecord = { actionId: command.actionId, state: "reached", moved: true };
    return { kind: "ended", record };
  }
  async queryAction(actionId: string): Promise<ActionRecord | undefined> {
    return { actionId, state: "reached", moved: true };
  }
  latestStatus(): ArmStatus | undefined {
    return this.#status;
  }
  onStatus(): () => void {
    return () => undefined;
  }
  linkState(): LinkState {
    return { state: "connected", since: 0, last_status_at: this.#status.stampMs };
  }
  onLinkState(): () => void {
    return () => undefined;
  }
  async halt(): Promise<HaltResult> {
    return { halted: true, status: this.#status };
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/** The disk's own fdatasync latency where the ledger lives: the floor under any durable intent write. */
function fsyncFloorUs(dir: string): number {
  const fd = openSync(join(dir, "fsync-probe"), "w");
  const page = Buffer.alloc(4096, 1);
  const samples: number[] = [];
  try {
    for (let i = 0; i < 50; i++) {
      const t0 = process.hrtime.bigint();
      writeSync(fd, page);
      fdatasyncSync(fd);
      samples.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  } finally {
    closeSync(fd);
  }
  return quantile(
    samples.sort((a, b) => a - b),
    0.5,
  );
}

/** What the process spent per call: a second table, beside the wall times. */
function printCpuFigures(figures: readonly CpuFigures[]): void {
  console.log("concurrency | cpu per call µs (mean) | cpu per call µs (median round) | event loop busy per call µs");
  for (const f of figures) {
    console.log(
      `${String(f.n).padStart(11)} | ${f.meanUs.toFixed(1).padStart(22)} | ${f.medianUs.toFixed(1).padStart(30)} | ${f.loopBusyUs.toFixed(1).padStart(27)}`,
    );
  }
}

/**
 * Promises made per motion call at concurrency 1, counted by async_hooks
 * (which slows every promise: counted apart from the timed runs). Each one is
 * a turn of the microtask queue and an allocation.
 */
async function promisesPerCall(
  executor: ReturnType<typeof composeExecutor>,
  names: readonly string[],
): Promise<number> {
  const CALLS = 200;
  let promises = 0;
  const hook = createHook({
    init: (_id, type) => {
      if (type === "PROMISE") promises++;
    },
  });
  hook.enable();
  try {
    for (let i = 0; i < CALLS; i++) {
      await executor.execute([
        {
          id: `promises${i}`,
          name: "move_joints",
          args: { positions: { [names[i % names.length] ?? "j0"]: ((i + 5) % 10) / 10 } },
        },
      ]);
    }
  } finally {
    hook.disable();
  }
  return promises / CALLS;
}

async function main(): Promise<void> {
  const names = Array.from({ length: JOINTS }, (_, i) => `j${i}`);
  const config = parseConfig(
    {
      arm: {
        name: "bench_arm",
        joints: names.map((name) => ({ name, min: -3, max: 3, max_velocity: 1, max_acceleration: 1 })),
      },
    },
    "bench",
  );
  const dir = mkdtempSync(join(LEDGER_PARENT, "armbridge-bench-"));
  const ledger = IntentLedger.open(join(dir, "ledger.sqlite"));
  const arm = new InstantArm(names);
  const executor = composeExecutor({ config, registry: createDefaultTools(config), transport: arm, ledger });
  let seq = 0;

  for (let i = 0; i < WARMUP_CALLS; i++) {
    await executor.execute([
      { id: `warm${i}`, name: "move_joints", args: { positions: { [names[i % JOINTS] ?? "j0"]: (i % 10) / 10 } } },
    ]);
  }
  const floor = fsyncFloorUs(dir);
  console.log(`executor overhead over a direct transport call (instantaneous transport, ledger on ${dir} with fsync)`);
  console.log(
    `this disk's fdatasync p50: ${floor.toFixed(1)} µs — every call waits for one (its intent; concurrent intents share one by group commit)`,
  );
  console.log(
    "concurrency | direct p50 µs | executor p50 µs | executor p99 µs | overhead p50 µs | minus fsync µs | wall per call µs | calls",
  );
  const cpuFigures: CpuFigures[] = [];
  for (const n of [1, 8, 64]) {
    const rounds = ROUNDS[n] ?? 10;
    const direct: number[] = [];
    const viaExecutor: number[] = [];
    let wallTotal = 0;
    const cpuPerCall: number[] = [];
    let loopBusyMs = 0;
    for (let r = 0; r < rounds; r++) {
      // Direct: the same commands straight to the transport.
      await Promise.all(
        names.slice(0, n).map(async (joint) => {
          const t0 = process.hrtime.bigint();
          await arm.runMotion({ actionId: `direct_${seq++}`, targets: { [joint]: (r % 10) / 10 }, speed: 0.5 });
          direct.push(Number(process.hrtime.bigint() - t0) / 1000);
        }),
      );
      const calls = names.slice(0, n).map((joint) => ({
        id: `c${seq++}`,
        name: "move_joints",
        args: { positions: { [joint]: ((r + 1) % 10) / 10 } },
      }));
      const started = new Map<string, bigint>();
      const wall0 = process.hrtime.bigint();
      const unsubscribe = executor.onEvent((e) => {
        if (e.type === "settled") {
          const t0 = started.get(e.callId);
          if (t0 !== undefined) viaExecutor.push(Number(process.hrtime.bigint() - t0) / 1000);
        }
      });
      for (const c of calls) started.set(c.id, wall0);
      const cpu0 = process.cpuUsage();
      const loop0 = performance.eventLoopUtilization();
      const out = await executor.execute(calls, { deadlineMs: 30_000 });
      const cpu = process.cpuUsage(cpu0);
      loopBusyMs += performance.eventLoopUtilization(loop0).active;
      cpuPerCall.push((cpu.user + cpu.system) / n);
      wallTotal += Number(process.hrtime.bigint() - wall0) / 1000;
      unsubscribe();
      const notDone = out.filter((o) => o.result.status !== "done");
      if (notDone.length) throw new Error(`bench call did not complete: ${JSON.stringify(notDone[0])}`);
    }
    direct.sort((a, b) => a - b);
    viaExecutor.sort((a, b) => a - b);
    cpuPerCall.sort((a, b) => a - b);
    cpuFigures.push({
      n,
      meanUs: cpuPerCall.reduce((sum, us) => sum + us, 0) / rounds,
      medianUs: quantile(cpuPerCall, 0.5),
      loopBusyUs: (loopBusyMs * 1000) / (rounds * n),
    });
    const d50 = quantile(direct, 0.5);
    const e50 = quantile(viaExecutor, 0.5);
    const e99 = quantile(viaExecutor, 0.99);
    console.log(
      `${String(n).padStart(11)} | ${d50.toFixed(1).padStart(13)} | ${e50.toFixed(1).padStart(15)} | ${e99.toFixed(1).padStart(15)} | ${(e50 - d50).toFixed(1).padStart(15)} | ${(e50 - d50 - floor).toFixed(1).padStart(14)} | ${(wallTotal / (rounds * n)).toFixed(1).padStart(16)} | ${rounds * n}`,
    );
  }
  console.log(
    "target: executor p50 under 1000 µs at concurrency 1, fsync included (reachable only where the disk's own fsync is well under 1 ms)",
  );
  printCpuFigures(cpuFigures);
  console.log(`promises made per call at concurrency 1: ${(await promisesPerCall(executor, names)).toFixed(1)}`);

  // Memory: a long-running bridge must not grow with the number of calls it
  // has served (the ledger is on disk; in-memory maps are bounded).
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    const heapAfter = async (calls: number): Promise<number> => {
      for (let i = 0; i < calls; i++) {
        await executor.execute([
          {
            id: `mem${seq++}`,
            name: "move_joints",
            args: { positions: { [names[i % JOINTS] ?? "j0"]: (i % 10) / 10 } },
          },
        ]);
      }
      gc();
      return process.memoryUsage().heapUsed;
    };
    const base = await heapAfter(2000);
    const after = await heapAfter(10_000);
    const growthPerCallB = (after - base) / 10_000;
    console.log(
      `memory: heap ${(base / 1e6).toFixed(1)} MB after 2k more calls, ${(after / 1e6).toFixed(1)} MB after 10k more: ${growthPerCallB.toFixed(1)} B per call`,
    );
    console.log("target: no growth with calls served (well under 100 B per call; the ledger lives on disk)");
  } else {
    console.log("memory: skipped (run with node --expose-gc, as `npm run bench:executor` does)");
  }
  executor.close();
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
