import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

describe("process lifetime", () => {
  it("a process that ran calls (including timeouts settled by observation) and drew a simulated camera picture, then closed the bridge and simulator, exits by itself", async () => {
    const child = spawn(
      process.execPath,
      ["test/fixtures/exit-child.mjs", join(mkdtempSync(join(tmpdir(), "armbridge-exit-")), "data")],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "silent" },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // A generous bound: this checks that the process ends at all, not how fast.
    const code = await new Promise<number | string>((resolve) => {
      const guard = setTimeout(() => {
        child.kill("SIGKILL");
        resolve("still running after 15 s: something kept the event loop alive");
      }, 15_000);
      child.on("exit", (c, sig) => {
        clearTimeout(guard);
        resolve(c ?? String(sig));
      });
    });
    expect(code, stderr).toBe(0);
    const done = JSON.parse(stdout.trim().split("\n").pop()!) as { statuses: [string, string][]; picture: string };
    expect(done.picture).toBe("done");
    expect(done.statuses).toEqual([
      ["done", "observation"],
      ["done", "observation"],
      ["done", "completion"],
    ]);
  });
});
