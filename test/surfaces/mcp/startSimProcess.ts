import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";

export const ROOT = join(import.meta.dirname, "..", "..", "..");

export interface SimProcess {
  readonly link: string;
  readonly child: ChildProcess;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the real firmware-sim process (dist/) on TCP port 0 and waits for its ready line. */
export async function startSimProcess(extraArgs: readonly string[] = []): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "dist", "firmware-sim", "main.js"), "--link", "tcp", "--port", "0", ...extraArgs],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "warn" },
    },
  );
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, "exit");
  const ready = new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      try {
        const msg = JSON.parse(line) as { event?: string; link?: string };
        if (msg.event === "ready" && typeof msg.link === "string") resolve(msg.link);
      } catch {
        // not the ready line
      }
    });
    exited.then(() => reject(new Error(`firmware-sim exited before ready: ${stderr}`)), reject);
  });
  const link = await ready;
  return {
    link,
    child,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      await exited;
      return child.exitCode;
    },
  };
}
