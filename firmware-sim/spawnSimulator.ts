import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { packageRoot } from "../src/config/packageRoot.js";
import { ArmbridgeError } from "../src/errors.js";
import { socatOnPath } from "./simOptions.js";

export interface SimChildOptions {
  readonly link: "pty" | "tcp";
  readonly seed: number;
  readonly effectsLog: string;
  /** The simulator's own logs (its stderr) go here. */
  readonly logFile: string;
  /** Further armbridge-sim flags: --motion-time, --fail-rate, --stall-joint, --config ... */
  readonly flags?: readonly string[] | undefined;
  /** How long to wait for the ready line. */
  readonly readyTimeoutMs?: number | undefined;
  /** TCP port on 127.0.0.1 (a simulator restarted where the last one was); default 0, any free port. */
  readonly port?: number | undefined;
  /** The simulator's log level (pino); default $ARMBRIDGE_LOG_LEVEL, else info. `debug` also logs frames answered from the reply cache. */
  readonly logLevel?: string | undefined;
}

export interface SimChild {
  /** What the bridge opens: the PTY path or tcp://127.0.0.1:PORT. */
  readonly link: string;
  readonly pid: number;
  readonly args: readonly string[];
  /** Resolves with the exit code when the simulator exits, for whatever reason. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves with its exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/** `socat` on PATH: firmware-sim can then offer a real PTY, like a USB serial device. */
export function socatAvailable(): boolean {
  return socatOnPath();
}

/**
 * Starts firmware-sim (`dist/firmware-sim/main.js`, the `armbridge-sim` bin)
 * as a child process and waits for its ready line. Used by the demo and the
 * benches. A separate process on purpose: the bridge talks
 * to it over a real byte link exactly as it would to a microcontroller.
 */
export async function spawnSimulator(options: SimChildOptions): Promise<SimChild> {
  const main = join(packageRoot(), "dist", "firmware-sim", "main.js");
  const args = [
    main,
    "--link",
    options.link,
    ...(options.link === "tcp" ? ["--port", String(options.port ?? 0)] : []),
    "--seed",
    String(options.seed),
    "--effects-log",
    options.effectsLog,
    ...(options.flags ?? []),
  ];
  const logFd = openSync(options.logFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", logFd],
      env: { ...process.env, ARMBRIDGE_LOG_LEVEL: options.logLevel ?? process.env.ARMBRIDGE_LOG_LEVEL ?? "info" },
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(logFd);
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // Safety net: the simulator never outlives the demo, even if the demo dies
  // abruptly. SIGTERM, not SIGKILL: the simulator stops its socat on SIGTERM,
  // and a SIGKILLed simulator would leave socat running.
  const killOnExit = (): void => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  process.once("exit", killOnExit);
  // A child that ended on its own (killed by a test, crashed) needs no net: a
  // caller that restarts simulators would otherwise pile up exit listeners.
  void exited.then(() => process.off("exit", killOnExit));

  const lines = createInterface({ input: child.stdout! });
  try {
    const link = await readyLine(lines, exited, {
      timeoutMs: options.readyTimeoutMs ?? 15_000,
      logFile: options.logFile,
    });
    let stopping: Promise<number | null> | undefined;
    return {
      link,
      pid: child.pid ?? -1,
      args,
      exited,
      stop(graceMs = 5000) {
        stopping ??= (async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGTERM");
            let grace: NodeJS.Timeout | undefined;
            const late = new Promise<"late">((resolve) => (grace = setTimeout(() => resolve("late"), graceMs)));
            if ((await Promise.race([exited, late])) === "late") child.kill("SIGKILL");
            clearTimeout(grace);
          }
          const code = await exited;
          lines.close();
          process.off("exit", killOnExit);
          return code;
        })();
        return stopping;
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    lines.close();
    process.off("exit", killOnExit);
    throw error;
  }
}

/** The link the simulator names on its ready line; refused when it exits first or says nothing within the time. */
async function readyLine(
  lines: Interface,
  exited: Promise<number | null>,
  options: { readonly timeoutMs: number; readonly logFile: string },
): Promise<string> {
  const { timeoutMs, logFile } = options;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ArmbridgeError("ARMB_ERR_LINK_OPEN", {
              link: "firmware-sim",
              reason: `no ready line within ${timeoutMs} ms (see ${logFile})`,
            }),
          ),
        timeoutMs,
      );
      lines.on("line", (line) => {
        try {
          const msg = JSON.parse(line) as { event?: unknown; link?: unknown };
          if (msg.event === "ready" && typeof msg.link === "string") resolve(msg.link);
        } catch {
          // not the ready line
        }
      });
      exited.then(
        (code) =>
          reject(
            new ArmbridgeError("ARMB_ERR_LINK_OPEN", {
              link: "firmware-sim",
              reason: `it exited with code ${code} before it was ready (see ${logFile})`,
            }),
          ),
        reject,
      );
    });
  } finally {
    clearTimeout(timer);
  }
}
