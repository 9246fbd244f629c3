import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Bridge } from "../../src/bridge/Bridge.js";
import { DEFAULT_CONFIG_PATH, loadConfig } from "../../src/config/loadConfig.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { readEffects, type EffectLine } from "../../firmware-sim/effectsJudge.js";
import { startSimProcess, type SimProcess } from "./SimProcess.js";

export interface RigOptions {
  readonly name: string;
  readonly link: "pty" | "tcp";
  readonly seed: number;
  /** armbridge-sim flags beyond link/seed/effects log. */
  readonly simFlags: readonly string[];
  /** move_joints timeout (the executor's wait before it observes). */
  readonly moveTimeoutMs: number;
}

/**
 * One experiment's world: a fresh firmware-sim process (same seed → same
 * motion times and failures in the same order), a bridge on a real ledger
 * file, and a folder for the effects log and both logs. Fresh per experiment
 * so one experiment's motions never shift another's random draws.
 */
export interface BenchRig {
  readonly dir: string;
  readonly sim: SimProcess;
  readonly bridge: Bridge;
  effects(): EffectLine[];
  close(): Promise<void>;
}

const liveDirs = new Set<string>();
/** Folders of rigs not yet closed; removed on exit unless BENCH_KEEP=1 (for reading the logs). */
export function removeLiveDirs(): void {
  if (process.env.BENCH_KEEP === "1") return;
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
}

export function benchConfig(moveTimeoutMs: number): ArmConfig {
  return loadConfig(DEFAULT_CONFIG_PATH, {
    edit: (raw) => ({
      ...raw,
      timeouts_ms: { ...(raw.timeouts_ms as Record<string, number>), move_joints: moveTimeoutMs },
    }),
  });
}

export async function startRig(options: RigOptions): Promise<BenchRig> {
  const dir = mkdtempSync(join(tmpdir(), `armbridge-seed-${options.name}-`));
  liveDirs.add(dir);
  const effectsLog = join(dir, "effects.jsonl");
  const sim = await startSimProcess({
    link: options.link,
    seed: options.seed,
    effectsLog,
    logFile: join(dir, "sim.log"),
    flags: options.simFlags,
  });
  const logger = pino(
    { level: process.env.ARMBRIDGE_LOG_LEVEL ?? "info", base: { app: "armbridge", rig: options.name } },
    pino.destination({ dest: join(dir, "bridge.log"), sync: true }),
  );
  let bridge: Bridge;
  try {
    bridge = await Bridge.start({
      config: benchConfig(options.moveTimeoutMs),
      transport: { kind: "serial", link: sim.link },
      dataDir: dir,
      logger,
    });
  } catch (error) {
    await sim.stop();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    dir,
    sim,
    bridge,
    effects: () => readEffects(effectsLog),
    close() {
      closing ??= (async () => {
        await bridge.close();
        await sim.stop();
        if (process.env.BENCH_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
        liveDirs.delete(dir);
      })();
      return closing;
    },
  };
}
