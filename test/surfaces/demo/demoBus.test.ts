import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { motionStarts, overlapsIn, readEffects } from "../../../firmware-sim/effectsJudge.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const CLI_MAIN = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");
const built = existsSync(CLI_MAIN);

async function demo(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GEMINI_API_KEY;
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

describe.skipIf(!built).each(["feetech_sts", "dynamixel_2"])(
  "armbridge demo --bus %s (needs dist: npm run build)",
  (protocol) => {
    it("runs the bus session on firmware-sim --bus and narrates the four things; the effects log agrees: one motion per call, none overlapping, the stall real", async () => {
      const dir = mkdtempSync(join(tmpdir(), "armbridge-demo-bus-"));
      try {
        const r = await demo(["--bus", protocol, "--link", "tcp", "--exit-after-session", "--data", join(dir, "data")]);
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.stdout).toContain(`firmware-sim --bus ${protocol}`);
        const summary = r.stdout.slice(r.stdout.indexOf("What this session showed:"));
        const boxes = summary.split("\n").filter((l) => /^\s+\[[ x]\]/.test(l));
        expect(boxes, r.stdout).toHaveLength(4);
        for (const b of boxes) expect(b, r.stdout).toMatch(/^\s+\[x\]/);
        expect(r.stdout).toMatch(
          /t1: wait timed out after \d+ ms — the motion went on — observed reached at \+\d+ ms \(\d+ ms after the timeout\) -> done/,
        );

        const effects = readEffects(join(dir, "data", "effects.jsonl"));
        // d1, d2, q1, q2, t1, u1: six calls that move, six motions on the servos, each once.
        expect(motionStarts(effects)).toBe(6);
        expect(overlapsIn(effects)).toBe(0);
        expect(effects.every((e) => e.action_id === null)).toBe(true);
        const ends = effects.filter((e) => e.event === "motion_end");
        expect(ends.filter((e) => e.joints.includes("shoulder_lift")).map((e) => e.outcome)).toEqual(["reached"]);
        expect(ends.filter((e) => e.joints.includes("wrist_flex")).map((e) => e.outcome)).toEqual(["stalled"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 90_000);
  },
);

describe("armbridge demo --bus, bad input", () => {
  it.skipIf(!built)("an unknown protocol is a usage error (exit 2) naming the choices", async () => {
    const r = await demo(["--bus", "canopen", "--exit-after-session"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ARMB_ERR_CLI_USAGE");
    expect(r.stderr).toContain("feetech_sts");
  });
});
