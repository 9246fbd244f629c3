import { spawnSimulator, type SimChild } from "../../firmware-sim/spawnSimulator.js";

export interface SimProcessOptions {
  readonly link: "pty" | "tcp";
  readonly seed: number;
  readonly effectsLog: string;
  /** The simulator's stderr (its pino log) goes here. */
  readonly logFile: string;
  /** Extra armbridge-sim flags: --motion-time, --fail-rate, ... */
  readonly flags: readonly string[];
}

/** firmware-sim running as its own process; live ones are tracked so SIGINT can end them all. */
export interface SimProcess {
  readonly link: string;
  readonly pid: number;
  readonly effectsLog: string;
  stop(): Promise<void>;
}

const live = new Set<SimChild>();

/** Synchronous last resort (process "exit"): no child outlives the bench. SIGKILL leaves the sim's socat behind, so prefer stopLiveSims. */
export function killLiveSims(): void {
  for (const sim of live) {
    try {
      process.kill(sim.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** SIGTERM to every live sim (it then closes its socat and PTY folder), SIGKILL to any still running after `graceMs`. */
export async function stopLiveSims(graceMs = 2000): Promise<void> {
  await Promise.all([...live].map((sim) => sim.stop(graceMs)));
  live.clear();
}

/**
 * firmware-sim as a separate process: the bridge then talks to it over a
 * real byte link (a socat PTY or TCP), as it would to a microcontroller.
 */
export async function startSimProcess(options: SimProcessOptions): Promise<SimProcess> {
  const sim = await spawnSimulator({
    link: options.link,
    seed: options.seed,
    effectsLog: options.effectsLog,
    logFile: options.logFile,
    flags: options.flags,
  });
  live.add(sim);
  return {
    link: sim.link,
    pid: sim.pid,
    effectsLog: options.effectsLog,
    stop: async () => {
      await sim.stop(3000);
      live.delete(sim);
    },
  };
}
