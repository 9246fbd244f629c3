import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const CLI_MAIN = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");

async function demo(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.GEMINI_API_KEY;
  const child = spawn(process.execPath, [CLI_MAIN, "demo", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("armbridge demo flags", () => {
  it("--link tcp --exit-after-session: the session over TCP, then exit 0 by itself", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-demo-tcp-"));
    try {
      const r = await demo(["--link", "tcp", "--exit-after-session", "--data", join(dir, "data")]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/firmware-sim \(pid \d+, seed 1\) on TCP: tcp:\/\/127\.0\.0\.1:\d+/);
      expect(r.stdout).toContain("=== session finished ===");
      expect(r.stdout).not.toContain("Serving.");
      // The process ended on its own: no handle left open (the CLI would say so after 5 s).
      expect(r.stderr).not.toContain("still running");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([
    [["--bogus"], "--bogus"],
    [["--seed", "x"], "--seed"],
    [["--link", "usb"], "--link"],
    [["--http", "localhost"], "--http"],
  ])("%j is a usage error (exit 2) naming the flag", async (args, flag) => {
    const r = await demo(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ARMB_ERR_CLI_USAGE");
    expect(r.stderr).toContain(flag);
    expect(r.stdout).toBe("");
  });

  it("--help prints the usage and exits 0", async () => {
    const r = await demo(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: armbridge demo");
  });
});
