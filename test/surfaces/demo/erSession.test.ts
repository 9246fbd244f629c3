import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { runErSession } from "../../../src/surfaces/demo/erSession.js";

// The offline ER session is judged end to end by test/surfaces/demo/npm-start.test.ts (effects log, FK).
describe("the ER session with the real Gemini Robotics-ER model", () => {
  it.skipIf(!process.env.GEMINI_API_KEY)(
    "looks through the simulated overhead camera and acts on what it sees (skipped: needs GEMINI_API_KEY and internet)",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "armbridge-er-real-"));
      const lines: string[] = [];
      try {
        const outcome = await runErSession({
          dataDir: join(dir, "er"),
          config: undefined,
          link: "tcp",
          seed: 1,
          logger: pino({ level: "silent" }),
          say: (l = "") => lines.push(l),
          shown: (p) => p,
          env: process.env,
          signal: AbortSignal.timeout(170_000),
          token: "er-session-test-token",
        });
        expect(outcome, lines.join("\n")).toEqual({ ran: true, failed: false });
        // It asked for at least one picture, and every picture it was given is on disk.
        expect(readdirSync(join(dir, "er", "frames")).length, lines.join("\n")).toBeGreaterThan(0);
        expect(lines.join("\n")).toContain("What the ER session showed:");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
