import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { packageRoot } from "../../src/config/packageRoot.js";

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

const live = new Set<ChildProcess>();

/** Synchronous last resort (process "exit"): no child outlives the bench. SIGKILL leaves the sim's socat behind, so prefer stopLiveSims. */
export function killLiveSims(): void {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  live.clear();
}

/** SIGTERM to every live sim (it then closes its socat and PTY folder), SIGKILL to any still running after `graceMs`. */
export async function stopLiveSims(graceMs = 2000): Promise<void> {
  const running = [...live].filter((c) => c.exitCode === null && c.signalCode === null);
  const exits = running.map((c) => new Promise<void>((resolve) => c.once("exit", () => resolve())));
  for (const c of running) c.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(exits), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
  killLiveSims();
}

/**
 * Starts `dist/firmware-sim/main.js` and waits for its ready line. A separate
 * process on purpose: the bridge then talks to it over a real byte link
 * (a socat PTY or TCP), as it would to a microcontroller.
 */
export async function startSimProcess(options: SimProcessOptions): Promise<SimProcess> {
  const main = join(packageRoot(), "dist", "firmware-sim", "main.js");
  const args = [
    main,
    "--link",
    options.link,
    ...(options.link === "tcp" ? ["--port", "0"] : []),
    "--seed",
    String(options.seed),
    "--effects-log",
    options.effectsLog,
    ...options.flags,
  ];
  const logFd = openSync(options.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", logFd], env: { ...process.env, ARMBRIDGE_LOG_LEVEL: process.env.ARMBRIDGE_LOG_LEVEL ?? "info" } });
  } finally {
    closeSync(logFd);
  }
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  let timer: NodeJS.Timeout | undefined;
  try {
    const link = await new Promise<string>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`firmware-sim printed no ready line within 15 s (see ${options.logFile})`)), 15_000);
      lines.on("line", (line) => {
        try {
          const msg = JSON.parse(line) as { event?: unknown; link?: unknown };
          if (msg.event === "ready" && typeof msg.link === "string") resolve(msg.link);
        } catch {
          // not the ready line
        }
      });
      void exited.then(() => reject(new Error(`firmware-sim exited before it was ready (see ${options.logFile})`)));
    });
    let stopping: Promise<void> | undefined;
    return {
      link,
      pid: child.pid ?? -1,
      effectsLog: options.effectsLog,
      stop() {
        stopping ??= (async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGTERM");
            let grace: NodeJS.Timeout | undefined;
            const late = new Promise<"late">((resolve) => (grace = setTimeout(() => resolve("late"), 3000)));
            if ((await Promise.race([exited.then(() => "exited" as const), late])) === "late") child.kill("SIGKILL");
            clearTimeout(grace);
          }
          await exited;
          lines.close();
          live.delete(child);
        })();
        return stopping;
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    lines.close();
    live.delete(child);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
