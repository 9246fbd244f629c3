import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, ROOT } from "../surfaces/cli/processes.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON, TOKEN } from "./consoleHarness.js";

let rig: ConsoleRig;

describe.skipIf(!HAVE_CHROMIUM)(
  `the console while an attached agent drives (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      rig = await ConsoleRig.start("attached");
    }, 60_000);
    afterAll(async () => rig?.stop());

    it("shows which agent is moving the arm, and HALT pressed there stops the agent's motion (effects log) and tells its model", async () => {
      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      // Several seconds of motion (1.2 rad at 0.08 of 2 rad/s; farther leaves the workspace envelope): time to press HALT.
      const scriptPath = join(rig.dir, "slow.jsonl");
      writeFileSync(
        scriptPath,
        `${JSON.stringify({ calls: [{ id: "slow-pan", name: "move_joints", args: { positions: { shoulder_pan: 1.2 }, speed: 0.08 } }] })}\n${JSON.stringify({ text: "stopped" })}\n`,
      );
      const transcript = join(rig.dir, "transcript.jsonl");
      const child = spawn(
        process.execPath,
        [
          CLI,
          "agent",
          "pan slowly",
          "--bridge",
          rig.url,
          "--token",
          TOKEN,
          "--model",
          `replay:${scriptPath}`,
          "--client",
          "browser-test-agent",
          "--transcript",
          transcript,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "warn", ARMBRIDGE_TOKEN: "", ARMBRIDGE_URL: "" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));

      try {
        await page
          .locator("#moving-now", {
            hasText: "Moving the arm now: move_joints on shoulder_pan for agent browser-test-agent",
          })
          .waitFor({ timeout: 30_000 });
      } catch (error) {
        throw new Error(
          `the console never showed the agent moving the arm; it says ${JSON.stringify(await page.locator("#moving-now").textContent())}; the agent said: ${stderr}`,
          { cause: error },
        );
      }
      await page.locator("#arm", { hasText: "MOVING: shoulder_pan" }).waitFor();
      await page
        .locator('.hrow[data-state="started"] .h-client', { hasText: "asked by agent browser-test-agent" })
        .waitFor();
      await rig.shot(page, "agent-moving-1280x800.png");
      // HALT latches the bridge, recorded as the console's (no name typed: nothing waits for an answer, the name field is hidden).
      await page.click("#halt");
      await page.locator("#latch.halted:not(.unconfirmed)", { hasText: "by an operator (console)" }).waitFor();

      expect(await exited, stderr).toBe(0);
      await page.locator("#moving-now", { hasText: "Nothing is moving the arm now." }).waitFor();
      // Ground truth: the agent's motion started once and ended short of its target, stopped.
      const mine = rig.effects().filter((e) => e.joints.includes("shoulder_pan") && e.action_id !== null);
      expect(mine.filter((e) => e.event === "motion_start")).toHaveLength(1);
      const end = mine.find((e) => e.event === "motion_end");
      expect(end?.outcome).toBe("stopped");
      // The model was told the motion was halted, by whom.
      const lines = readFileSync(transcript, "utf8")
        .split("\n")
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as { type: string; responses?: { id: string; response: { output?: { message: string } } }[] },
        );
      const told =
        lines.find((l) => l.type === "responses")?.responses?.find((r) => r.id === "slow-pan")?.response.output
          ?.message ?? "";
      expect(told, stdout).toMatch(/was stopped part-way: an operator \(console\) halted the arm at shoulder_pan=/);
      await page.locator(".hrow .h-client", { hasText: "asked by agent browser-test-agent" }).first().waitFor();
      await rig.shot(page, "agent-halted-1280x800.png");
      expect(problems).toEqual([]);
    }, 90_000);
  },
);
