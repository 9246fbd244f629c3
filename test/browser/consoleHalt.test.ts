import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { interrupt } from "../surfaces/cli/processes.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

/**
 * HALT as an operator at the arm uses it: on screen at any scroll position on
 * a phone and a laptop, one tap, its outcome told as the arm answered it, and
 * a latch that refuses every motion until released by name — judged by the
 * simulator's effects log, not by what the bridge answered.
 */
let rig: ConsoleRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

/** Evaluated in the page as a string: this file is type-checked without the DOM's types. */
async function scrollToBottom(page: Page): Promise<{ scrollY: number; scrollHeight: number; innerHeight: number }> {
  return page.evaluate(
    `(() => { window.scrollTo(0, document.documentElement.scrollHeight); return { scrollY: window.scrollY, scrollHeight: document.documentElement.scrollHeight, innerHeight: window.innerHeight }; })()`,
  );
}

/** The element a tap at the HALT button's centre lands on is the button itself (nothing covers it). */
async function haltIsTopmost(page: Page): Promise<boolean> {
  return page.evaluate(
    `(() => { const b = document.getElementById("halt"); const r = b.getBoundingClientRect(); const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2); return hit === b || b.contains(hit); })()`,
  );
}

const motionStarts = (r: ConsoleRig): number => r.effects().filter((e) => e.event === "motion_start").length;

describe.skipIf(!HAVE_CHROMIUM)(`console HALT (skipped when ${NO_CHROMIUM_REASON})`, () => {
  it.each([
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ])(
    "at $width x $height: HALT stays on screen scrolled to the bottom, halts a motion without a card, and latches until released by name",
    async (viewport) => {
      rig = await ConsoleRig.start(`halt-${viewport.width}`);
      const r = rig;
      // Enough history that the page scrolls.
      for (let i = 0; i < 10; i++)
        expect(
          (await r.call(`fill-${i}`, "move_joints", { positions: { elbow: i % 2 === 0 ? 0.2 : 0.1 }, speed: 1 }))
            .status,
        ).toBe("done");
      const { page, problems } = await r.open(viewport);
      await page.locator("#history li").nth(9).waitFor();

      // A slow wrist_3 motion (3 rad at 15 % speed: several seconds), halted part-way from the console.
      const slow = r.call("slow", "move_joints", { positions: { wrist_3: 3.0 }, speed: 0.15 });
      let settledEarly: unknown;
      void slow.then((early) => (settledEarly = early));
      await page.locator("#arm", { hasText: "MOVING" }).waitFor();
      expect(settledEarly, "the slow motion is still running when HALT is pressed").toBeUndefined();
      const scrolled = await scrollToBottom(page);
      expect(
        scrolled.scrollHeight,
        "the page must be taller than the screen for this test to mean anything",
      ).toBeGreaterThan(scrolled.innerHeight);
      expect(scrolled.scrollY).toBeGreaterThan(0);
      const box = await page.locator("#halt").boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
      expect(await haltIsTopmost(page)).toBe(true);
      await page.locator("#halt").click({ timeout: 2000 });
      await page.locator("#latch.halted:not(.unconfirmed)", { hasText: "the arm confirmed it" }).waitFor();
      await r.shot(page, `halted-${viewport.width}x${viewport.height}.png`);

      // The halted motion: stopped at a known pose, settled by the operator, no question asked.
      const halted = await slow;
      expect(halted.status).toBe("stopped");
      expect(halted.settled_by).toBe("operator");
      const slowEnd = r.effects().find((e) => e.event === "motion_end" && e.action_id === halted.action_id);
      expect(slowEnd?.outcome).toBe("stopped");
      expect(await page.locator(`[data-action-id="${halted.action_id}"]`).count()).toBe(0);
      const state = await r.api<{ halted: boolean; pending_unknowns: unknown[] }>("GET", "/v1/state");
      expect(state.json).toMatchObject({ halted: true, pending_unknowns: [] });

      // Latched: refused, coded, and the arm did not move.
      const before = motionStarts(r);
      const refused = await r.call("while-halted", "move_joints", { positions: { elbow: 0.5 } });
      expect(refused).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
      await new Promise((res) => setTimeout(res, 300));
      expect(motionStarts(r)).toBe(before);

      // Released by name from the console: motion is accepted again.
      await page.locator("#release-name").fill("");
      await page.locator("#release").click();
      await page.locator("#release-error", { hasText: "Type your name" }).waitFor();
      expect((await r.call("still-halted", "move_joints", { positions: { elbow: 0.5 } })).status).toBe("blocked");
      await page.locator("#release-name").fill("Ada Lovelace");
      await page.locator("#release").click();
      await page.locator("#latch").waitFor({ state: "hidden" });
      const after = await r.call("after-release", "move_joints", { positions: { elbow: 0.5 } });
      expect(after.status).toBe("done");
      expect(motionStarts(r)).toBe(before + 1);
      await r.shot(page, `released-${viewport.width}x${viewport.height}.png`);
      expect(problems).toEqual([]);
    },
    120_000,
  );

  it("a HALT with the arm link down is told in red as not confirmed, never as success, and latches all the same", async () => {
    rig = await ConsoleRig.start("halt-link-down");
    const r = rig;
    const { page, problems } = await r.open({ width: 390, height: 844 });
    await interrupt(r.sim);
    await page.locator("#link:not(.ok)").waitFor();
    await page.locator("#halt").click();
    // Told once, in the loudest red: the latch itself says the arm did not confirm it, and what to do.
    const latch = page.locator("#latch.halted.unconfirmed", { hasText: "did NOT confirm" });
    await latch.waitFor({ timeout: 15_000 });
    expect(await latch.textContent()).toMatch(/emergency stop/);
    expect(await page.locator("#halt-outcome").isVisible()).toBe(false);
    await r.shot(page, "halt-link-down-390x844.png");
    const state = await r.api<{ halted: boolean; halt: { confirmed: boolean } }>("GET", "/v1/state");
    expect(state.json).toMatchObject({ halted: true, halt: { confirmed: false } });
    // The browser's own requests may fail while the link is down; nothing else may.
    expect(problems.filter((p) => !/Failed to load resource/.test(p))).toEqual([]);
  }, 60_000);
});
