/**
 * npm run bench:startup — how quickly `armbridge serve` comes back: the
 * simulator is started once (its own process, over TCP), then `serve` is
 * spawned N times on one data folder, each killed with SIGKILL once it said
 * it was ready, as a crash would. Prints spawn → ready p50/p90, and where the
 * time goes, from the timestamps the child logs at debug level (component
 * "startup"): Node's start and module loading, the HTTP bind, the ledger's
 * open, kinematics and envelope, the link handshake, the executor, the
 * start-up reconciliation, and the HTTP server up to the ready line.
 *
 * A bare `node -e ""` is timed too: the floor no serve can go under. On a
 * machine shared with other work the wall times swing with its load, so the
 * CPU time serve spent up to its ready line (Linux: /proc/PID/stat) is
 * printed beside them: it moves with what serve does, not with the neighbours.
 *
 * Prints figures; asserts nothing. STARTUP_RUNS sets N (default 15);
 * STARTUP_CONFIG another arm config for serve and the simulator.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSimulator } from "../firmware-sim/spawnSimulator.js";
import { spawnServe } from "./crashloop/ServeChild.js";
import { formatTable, ms } from "./seed/table.js";

const RUNS = Number(process.env.STARTUP_RUNS ?? 15);
const CONFIG = process.env.STARTUP_CONFIG;

/** The start-up marks serve logs, in the order they come, and the name of the stretch that ends at each. */
const MARKS: readonly (readonly [string, string])[] = [
  ["serve running", "node start + module loading"],
  ["http port bound", "HTTP port bound"],
  ["ledger open", "ledger open"],
  ["kinematics and envelope loaded", "URDF, kinematics, envelope"],
  ["arm link open", "link handshake"],
  ["executor built", "executor built (envelope warm-up)"],
  ["ledger reconciled", "start-up reconciliation"],
];

interface Run {
  readonly readyMs: number;
  /** CPU time (user + system) the process spent up to its ready line, ms; NaN where /proc is not there. */
  readonly cpuMs: number;
  /** ms from spawn to each mark, by mark. */
  readonly marks: ReadonlyMap<string, number>;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** The child's start-up lines (pino JSON, `time` in epoch ms) as ms since the spawn. */
function marksOf(logFile: string, spawnedAt: number): Map<string, number> {
  const marks = new Map<string, number>();
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { component?: unknown; msg?: unknown; time?: unknown };
    if (entry.component !== "startup" || typeof entry.msg !== "string" || typeof entry.time !== "number") continue;
    if (!marks.has(entry.msg)) marks.set(entry.msg, entry.time - spawnedAt);
  }
  return marks;
}

/** utime + stime of a live process, from /proc/PID/stat (clock ticks, 100 per second on Linux). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function nodeFloorMs(): number[] {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const began = performance.now();
    spawnSync(process.execPath, ["-e", ""]);
    times.push(performance.now() - began);
  }
  return times;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-startup-"));
  const sim = await spawnSimulator({
    link: "tcp",
    seed: 7,
    effectsLog: join(dir, "effects.jsonl"),
    logFile: join(dir, "sim.log"),
    flags: CONFIG === undefined ? [] : ["--config", CONFIG],
  });
  const runs: Run[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const logFile = join(dir, `serve-${i}.log`);
      const spawnedAt = Date.now();
      const child = await spawnServe({
        link: sim.link,
        dataDir: join(dir, "data"),
        token: "startup-bench-token-0123456789",
        logFile,
        logLevel: "debug",
        readyTimeoutMs: 30_000,
        config: CONFIG,
      });
      const cpuMs = cpuMsOf(child.pid);
      await child.kill();
      runs.push({ readyMs: child.readyMs, cpuMs, marks: marksOf(logFile, spawnedAt) });
    }
  } finally {
    await sim.stop(3000);
  }
  report(runs, nodeFloorMs());
  rmSync(dir, { recursive: true, force: true });
}

function report(runs: readonly Run[], floor: readonly number[]): void {
  const ready = runs.map((r) => r.readyMs);
  process.stdout.write(
    `serve spawn → ready over ${runs.length} starts after SIGKILL: p50 ${ms(quantile(ready, 0.5))}, p90 ${ms(quantile(ready, 0.9))}, min ${ms(Math.min(...ready))}, max ${ms(Math.max(...ready))}\n`,
  );
  const cpu = runs.map((r) => r.cpuMs);
  process.stdout.write(`CPU time up to ready: p50 ${ms(quantile(cpu, 0.5))}, p90 ${ms(quantile(cpu, 0.9))}\n`);
  process.stdout.write(`node -e "" (the floor): p50 ${ms(quantile(floor, 0.5))}\n\n`);
  const rows: string[][] = [];
  let previous: number[] = runs.map(() => 0);
  for (const [mark, stretch] of MARKS) {
    const at = runs.map((r) => r.marks.get(mark) ?? NaN);
    const took = at.map((t, i) => t - (previous[i] ?? 0));
    rows.push([stretch, ms(quantile(took, 0.5)), ms(quantile(took, 0.9)), ms(quantile(at, 0.5))]);
    previous = at;
  }
  const toReady = ready.map((t, i) => t - (previous[i] ?? 0));
  rows.push([
    "HTTP server up to the ready line",
    ms(quantile(toReady, 0.5)),
    ms(quantile(toReady, 0.9)),
    ms(quantile(ready, 0.5)),
  ]);
  process.stdout.write(formatTable([["stretch", "p50", "p90", "p50 since spawn"], ...rows]) + "\n");
}

await main();
