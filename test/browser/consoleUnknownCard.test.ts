import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

/**
 * The unknown card, as an operator at the arm reads it: three answers that
 * look alike, the pose the arm reports written against the target, and
 * "reached" — against a report that says short — only after a second,
 * deliberate step. The simulator stalls wrist_2 half-way to 0.900.
 */
let rig: ConsoleRig;
let actionId: string;
let reportedWrist2: number;

/** What makes each answer look heavier than another: fill, border, ink, the label's weight and size. Evaluated as a string: this file has no DOM types. */
async function looks(page: Page): Promise<string[]> {
  return page.evaluate(
    `[...document.querySelectorAll('[data-action-id="${actionId}"] button.outcome')].map(b => { const s = getComputedStyle(b); const l = getComputedStyle(b.querySelector(".o-label")); return [s.backgroundColor, s.borderTopColor, s.borderTopWidth, s.color, s.opacity, l.fontWeight, l.fontSize, l.color].join(" | "); })`,
  );
}

async function openCard(page: Page): Promise<Locator> {
  const card = page.locator(`[data-action-id="${actionId}"]`);
  await card.locator('[data-outcome="partial"]').waitFor();
  return card;
}

describe.skipIf(!HAVE_CHROMIUM)(
  `console: the unknown card leans to no answer (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      rig = await ConsoleRig.start("unknown-card", { simArgs: ["--stall-joint", "wrist_2"] });
      const stalled = await rig.call("stall-wrist-2", "move_joints", { positions: { wrist_2: 0.9 } });
      expect(stalled.status).toBe("unknown");
      actionId = stalled.action_id!;
      const state = await rig.api<{ pose: Record<string, number> }>("GET", "/v1/state");
      reportedWrist2 = state.json.pose.wrist_2!;
      // The stall leaves wrist_2 about half-way: far outside the 0.01 rad tolerance.
      expect(Math.abs(reportedWrist2 - 0.9)).toBeGreaterThan(0.3);
    }, 180_000);
    afterAll(async () => rig?.stop());

    it.each([
      { width: 390, height: 844 },
      { width: 1280, height: 800 },
    ])(
      "at $width x $height: three answers of equal weight, the reported pose against the target in words, and a second step for reached",
      async (viewport) => {
        const { page, problems } = await rig.open(viewport);
        const card = await openCard(page);
        await page.fill("#operator", "Ada Lovelace");

        const styles = await looks(page);
        expect(styles).toHaveLength(3);
        expect(styles[0]).toMatch(/^rgba?\(/);
        expect(styles[1], "partial looks like reached").toBe(styles[0]);
        expect(styles[2], "not moved looks like reached").toBe(styles[0]);

        const words = `wrist_2: ${reportedWrist2.toFixed(3)} rad of 0.900: short by ${Math.abs(reportedWrist2 - 0.9).toFixed(3)}`;
        await card.locator('[data-role="reported"]', { hasText: words }).waitFor();
        await card.locator('[data-role="reported"]').scrollIntoViewIfNeeded();
        await rig.shot(page, `card-${viewport.width}x${viewport.height}.png`);

        // Reached, against the arm's report: nothing is recorded until the second step.
        await card.locator('button[data-outcome="reached"]').click();
        const second = card.locator('[role="alertdialog"]');
        await second.waitFor();
        // (On a loaded machine the arm's status may be late: the card then says the report is its last, not now.)
        expect(await second.textContent()).toMatch(
          /The arm reports wrist_2 short of the target( \(its last report, not now\))? \u2014 confirm you see it there/,
        );
        expect((await rig.api<{ state: string }>("GET", `/v1/actions/${actionId}`)).json.state).toBe("unknown");
        await second.scrollIntoViewIfNeeded();
        await rig.shot(page, `second-step-${viewport.width}x${viewport.height}.png`);
        // Back: the card stays as it was, still unanswered.
        await second.locator('[data-role="cancel-reached"]').click();
        await second.waitFor({ state: "hidden" });
        expect((await rig.api<{ state: string }>("GET", `/v1/actions/${actionId}`)).json.state).toBe("unknown");
        expect(problems).toEqual([]);
        await page.close();
      },
      180_000,
    );

    it("the second step records reached under the operator's name, and wrist_2's next motion runs once", async () => {
      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const card = await openCard(page);
      await page.fill("#operator", "Ada Lovelace");
      await card.locator('button[data-outcome="reached"]').click();
      await card.locator('[data-role="confirm-reached"]').click();
      await card.waitFor({ state: "detached" });
      const recorded = await rig.api("GET", `/v1/actions/${actionId}`);
      expect(recorded.json).toMatchObject({
        state: "confirmed_done",
        operator: "Ada Lovelace",
        operator_outcome: "reached",
      });
      const next = await rig.call("after-reached", "move_joints", { positions: { wrist_2: 0.2 } });
      expect(next.status).toBe("done");
      const starts = rig.effects().filter((e) => e.event === "motion_start" && e.action_id === next.action_id);
      expect(starts).toHaveLength(1);
      expect(problems).toEqual([]);
      await page.close();
    }, 180_000);
  },
);
