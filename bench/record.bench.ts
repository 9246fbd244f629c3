/**
 * npm run bench:record — what recording a session costs serve: the same
 * move_joints calls, one at a time, on a bridge in this process with and
 * without an EpisodeRecorder, in interleaved blocks so drift on a shared
 * machine falls on both alike. firmware-sim runs as its own process over TCP
 * reporting status at 400 Hz, every motion taking 1 ms; the default arm's
 * simulated camera is recorded at 10 fps (it draws in this process, so its
 * drawing is counted as recording's cost: a real camera's bytes would not be).
 *
 * Prints this process's CPU (user + system over wall time) and the calls'
 * p50 / p95 latency in each mode. Target (issue #32): under 5 % CPU added,
 * no latency added. Asserts nothing: machines are noisy, compare within a run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Bridge } from "../src/bridge/Bridge.js";
import { loadConfig } from "../src/config/loadConfig.js";
import { EpisodeRecorder } from "../src/recording/EpisodeRecorder.js";
import { spawnSimulator } from "../firmware-sim/spawnSimulator.js";

const BLOCK_MS = Number(process.env.BENCH_RECORD_BLOCK_MS ?? 5000);
const BLOCKS = Number(process.env.BENCH_RECORD_BLOCKS ?? 6);
/** 0 records no camera at all (not even around calls): the recorder's own cost, apart from drawing the simulated camera. */
const CAMERA_FPS = Number(process.env.BENCH_RECORD_CAMERA_FPS ?? 10);

type Mode = "without" | "with";

interface Sample {
  cpuMs: number;
  wallMs: number;
  latencies: number[];
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

async function block(bridge: Bridge, into: Sample, prefix: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < BLOCK_MS) {
    const started = performance.now();
    const position = i % 2 === 0 ? 0.6 : 0.4;
    await bridge.execute([{ id: `${prefix}-${i++}`, name: "move_joints", args: { positions: { elbow: position } } }]);
    into.latencies.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpu0);
  into.cpuMs += (cpu.user + cpu.system) / 1000;
  into.wallMs += performance.now() - t0;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-bench-record-"));
  const sim = await spawnSimulator({
    link: "tcp",
    seed: 1,
    effectsLog: join(dir, "effects.jsonl"),
    logFile: join(dir, "sim.log"),
    flags: ["--motion-time", "fixed:1", "--status-hz", "400"],
  });
  let bridge: Bridge | undefined;
  const samples: Record<Mode, Sample> = {
    without: { cpuMs: 0, wallMs: 0, latencies: [] },
    with: { cpuMs: 0, wallMs: 0, latencies: [] },
  };
  try {
    bridge = await Bridge.start({
      config: loadConfig(),
      transport: { kind: "serial", link: sim.link },
      dataDir: join(dir, "data"),
      logger: pino({ level: "silent" }),
    });
    for (let b = 0; b < BLOCKS; b++) {
      for (const mode of (b % 2 === 0 ? ["without", "with"] : ["with", "without"]) as Mode[]) {
        const recorder =
          mode === "with"
            ? new EpisodeRecorder(bridge, {
                dir: join(dir, "rec"),
                maxGib: 1,
                maxFileMib: 256,
                jointRateHz: 50,
                chunkKib: 256,
                cameras: { rateHz: CAMERA_FPS, aroundCalls: CAMERA_FPS > 0 },
              })
            : undefined;
        await block(bridge, samples[mode], `${mode}-${b}`);
        await recorder?.close();
      }
    }
  } finally {
    await bridge?.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = (Object.keys(samples) as Mode[]).map((mode) => {
    const s = samples[mode];
    const sorted = [...s.latencies].sort((a, b) => a - b);
    return {
      mode,
      calls: s.latencies.length,
      cpu_percent: Number(((100 * s.cpuMs) / s.wallMs).toFixed(1)),
      p50_ms: Number(quantile(sorted, 0.5).toFixed(2)),
      p95_ms: Number(quantile(sorted, 0.95).toFixed(2)),
    };
  });
  console.log(
    JSON.stringify({
      bench: "record",
      cpus: cpus().length,
      loadavg: loadavg(),
      block_ms: BLOCK_MS,
      blocks: BLOCKS,
      rows,
    }),
  );
  const [without, withRec] = rows;
  if (without && withRec)
    console.log(
      `recording added ${(withRec.cpu_percent - without.cpu_percent).toFixed(1)} % CPU and ${(withRec.p50_ms - without.p50_ms).toFixed(2)} ms to the p50 call (p95 ${(withRec.p95_ms - without.p95_ms).toFixed(2)} ms)`,
    );
}

await main();
