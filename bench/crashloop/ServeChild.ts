import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { packageRoot } from "../../src/config/packageRoot.js";

export interface ServeChildOptions {
  /** What `--serial` opens (the simulator's tcp:// URL or PTY path). */
  readonly link: string;
  readonly dataDir: string;
  readonly token: string;
  /** The bridge's stderr (its pino log) is appended here. */
  readonly logFile: string;
  /** pino level of the child; `debug` also logs every link-level re-send. */
  readonly logLevel: string;
  /** How long to wait for the ready line (start-up reconciliation included). */
  readonly readyTimeoutMs: number;
  /** Node's own flags before the script (bench:memory passes `--inspect=127.0.0.1:0`). */
  readonly nodeArgs?: readonly string[];
  /** An arm config other than the default (serve --config). */
  readonly config?: string | undefined;
}

/** One `armbridge serve` process, from spawn to its ready line. */
export interface ServeChild {
  readonly pid: number;
  /** The API's base URL from the ready line. */
  readonly url: string;
  /** Spawn → ready line, in ms: process start, device handshake, start-up reconciliation, HTTP bind. */
  readonly readyMs: number;
  /** SIGKILL, resolved once the process is gone (its exit event): nothing of it runs after this. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown), SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs: number): Promise<number | null>;
}

/** Why a serve process ended before it said it was ready. */
export class ServeStartFailed extends Error {
  override readonly name = "ServeStartFailed";
  constructor(
    readonly exitCode: number | null,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const live = new Set<ChildProcess>();

/** Synchronous last resort (process "exit", a failed test): no bridge outlives the harness. */
export function killLiveServeChildren(): void {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  live.clear();
}

/**
 * Starts `armbridge serve` (dist/src/surfaces/cli/main.js, the `armbridge`
 * bin) as a child process on an HTTP port of the kernel's choosing and
 * waits for its ready line. A real process on purpose: the crash loop kills
 * it with SIGKILL, which no in-process bridge can model.
 */
export async function spawnServe(options: ServeChildOptions): Promise<ServeChild> {
  const main = join(packageRoot(), "dist", "src", "surfaces", "cli", "main.js");
  const args = [
    ...(options.nodeArgs ?? []),
    main,
    "serve",
    "--serial",
    options.link,
    "--http",
    "127.0.0.1:0",
    "--data",
    options.dataDir,
    ...(options.config === undefined ? [] : ["--config", options.config]),
  ];
  const logFd = openSync(options.logFile, "a");
  let child: ChildProcess;
  const startedAt = performance.now();
  try {
    // The token goes by environment, not argv, so it is not in `ps` output.
    child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", logFd],
      env: { ...process.env, ARMBRIDGE_TOKEN: options.token, ARMBRIDGE_LOG_LEVEL: options.logLevel },
    });
  } finally {
    closeSync(logFd);
  }
  live.add(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then(() => live.delete(child));
  const lines = createInterface({ input: child.stdout! });

  let timer: NodeJS.Timeout | undefined;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ServeStartFailed(null, `no ready line within ${options.readyTimeoutMs} ms (see ${options.logFile})`),
          ),
        options.readyTimeoutMs,
      );
      lines.on("line", (line) => {
        try {
          const msg = JSON.parse(line) as { event?: unknown; http?: unknown };
          if (msg.event === "ready" && typeof msg.http === "string") resolve(msg.http);
        } catch {
          // not the ready line
        }
      });
      exited.then(
        (code) =>
          reject(
            new ServeStartFailed(code, `serve exited with code ${code} before it was ready (see ${options.logFile})`),
          ),
        reject,
      );
    });
    const readyMs = performance.now() - startedAt;
    let ending: Promise<number | null> | undefined;
    const end = (signal: NodeJS.Signals, graceMs: number): Promise<number | null> => {
      ending ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        let grace: NodeJS.Timeout | undefined;
        const late = new Promise<"late">((resolve) => (grace = setTimeout(() => resolve("late"), graceMs)));
        if ((await Promise.race([exited, late])) === "late") child.kill("SIGKILL");
        clearTimeout(grace);
        const code = await exited;
        lines.close();
        return code;
      })();
      return ending;
    };
    return {
      pid: child.pid ?? -1,
      url,
      readyMs,
      kill: async () => {
        await end("SIGKILL", 10_000);
      },
      stop: (graceMs) => end("SIGTERM", graceMs),
    };
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    lines.close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
