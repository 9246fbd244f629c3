import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ScriptedGeminiServer } from "../../fixtures/gemini/ScriptedGeminiServer.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const CLI_MAIN = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");

async function demo(
  args: readonly string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GEMINI_API_KEY;
  Object.assign(env, extraEnv);
  const child = spawn(process.execPath, [CLI_MAIN, "demo", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
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

  it("with GEMINI_API_KEY: the model is asked the demo instruction and its calls are narrated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-demo-gemini-"));
    const server = await ScriptedGeminiServer.start();
    const turn = (parts: unknown[]) => ({ candidates: [{ content: { role: "model", parts }, finishReason: "STOP" }] });
    server.unaryResponses = [
      // The ER session comes first, on its own simulated arm: the model looks, then answers.
      turn([{ functionCall: { id: "e1", name: "get_camera_image", args: { camera: "overhead" } } }]),
      turn([{ text: '[{"point": [500, 619], "label": "red block"}]' }]),
      turn([
        { functionCall: { id: "g1", name: "move_joints", args: { positions: { shoulder_pan: 0.8 } } } },
        { functionCall: { id: "g2", name: "move_joints", args: { positions: { wrist_1: -1.0 } } } },
      ]),
      turn([{ text: "Both joints moved together." }]),
    ];
    try {
      const r = await demo(
        ["--link", "tcp", "--exit-after-session", "--data", join(dir, "data"), "--base-url", server.baseUrl],
        { GEMINI_API_KEY: "test-key" },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain("Gemini session with gemini-robotics-er-2-preview");
      expect(r.stdout).toMatch(
        /=> g1 \[\+\d+\.\.\+\d+ ms\] and g2 \[\+\d+\.\.\+\d+ ms\] ran together on disjoint joints/,
      );
      expect(r.stdout).toContain("the model answers: Both joints moved together.");
      expect(server.httpRequests).toHaveLength(4);
      // The ER session asks the Robotics-ER model with the ER instruction and Google's point convention, and gets the picture back.
      expect(r.stdout).toContain("Gemini Robotics-ER session with gemini-robotics-er-2-preview");
      expect(server.httpRequests[0]!.path).toBe("/v1beta/models/gemini-robotics-er-2-preview:generateContent");
      expect(JSON.stringify(server.httpRequests[0]!.body)).toContain("Look at the table through the overhead camera");
      expect(JSON.stringify(server.httpRequests[0]!.body)).toContain(
        "Points in an image are [y, x], each normalised to 0-1000",
      );
      const erReply = (
        server.httpRequests[1]!.body as { contents: { role: string; parts: Record<string, unknown>[] }[] }
      ).contents.at(-1)!;
      expect(erReply.parts[0]).toMatchObject({ functionResponse: { id: "e1", name: "get_camera_image" } });
      expect(
        erReply.parts.some((p) => (p.inlineData as { mimeType?: string } | undefined)?.mimeType === "image/jpeg"),
      ).toBe(true);
      expect(r.stdout).toMatch(
        /e1 get_camera_image: frame from overhead \(640×480, [^)]*\) sent to the model; saved to \S+\/er\/frames\/01-e1-overhead\.jpg/,
      );
      expect(JSON.stringify(server.httpRequests[2]!.body)).toContain("in ONE turn, call move_joints twice in parallel");
      expect(JSON.stringify(server.httpRequests[3]!.body)).toContain('"functionResponse"');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("ends with exit 1 when the simulator dies under it, instead of serving a dead arm", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-demo-simdeath-"));
    const child = spawn(process.execPath, [CLI_MAIN, "demo", "--link", "tcp", "--data", join(dir, "data")], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    const serving = new Promise<void>((resolve) => {
      child.stdout.on("data", (b: Buffer) => {
        stdout += b.toString();
        if (stdout.includes("Press Ctrl-C to stop.")) resolve();
      });
    });
    const exited = once(child, "exit") as Promise<[number | null]>;
    try {
      await Promise.race([serving, exited]);
      const simPid = Number(/firmware-sim \(pid (\d+)/.exec(stdout)?.[1]);
      expect(simPid, stdout).toBeGreaterThan(0);
      process.kill(simPid, "SIGKILL");
      const [code] = await exited;
      expect(code, stdout).toBe(1);
      expect(stdout).toMatch(/firmware-sim exited with code null .*; shutting down\./);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([
    [["--bogus"], "--bogus"],
    [["--seed", "x"], "--seed"],
    [["--link", "usb"], "--link"],
    [["--http", "localhost"], "--http"],
    [["--base-url", "ftp://x"], "--base-url"],
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
