import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const CLI = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");
export const SIM = join(ROOT, "dist", "firmware-sim", "main.js");

/** Quiet logs unless the caller asks otherwise. */
const baseEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  ARMBRIDGE_LOG_LEVEL: process.env.ARMBRIDGE_LOG_LEVEL ?? "warn",
  ARMBRIDGE_TOKEN: "",
  ARMBRIDGE_OPERATOR_TOKEN: "",
  ARMBRIDGE_URL: "",
});

/** Runs the CLI to completion. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...baseEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ReadyProcess {
  readonly child: ChildProcess;
  readonly ready: Record<string, unknown>;
  /** Every stdout line after the ready line. */
  readonly lines: string[];
  stderr(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

/** Spawns a node script and waits for its `{"event":"ready"}` line on stdout. */
export function startReady(file: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ReadyProcess> {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-8000)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let ready: Record<string, unknown> | undefined;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (ready) {
        lines.push(line);
        return;
      }
      try {
        const j = JSON.parse(line) as Record<string, unknown>;
        if (j.event === "ready") {
          ready = j;
          resolve({ child, ready: j, lines, stderr: () => err, exited });
        } else lines.push(line);
      } catch {
        lines.push(line);
      }
    });
    void exited.then((code) => {
      if (!ready) reject(new Error(`${file} exited ${code} before its ready line; stderr: ${err}`));
    });
  });
}

/** What `promise` resolved with, or "hung" when it had not within `ms`; the timer is always cleared. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGINT, then the exit code; SIGKILL only if it will not go (and then the test fails on the code). */
export async function interrupt(p: ReadyProcess): Promise<number | null> {
  if (p.child.exitCode !== null) return p.child.exitCode;
  p.child.kill("SIGINT");
  const code = await within(p.exited, 15_000);
  if (code === "hung") {
    p.child.kill("SIGKILL");
    await p.exited;
    return -1;
  }
  return code;
}
