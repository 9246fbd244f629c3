import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

let rig: ConsoleRig;

/** Evaluated in the page as a string: this file is type-checked without the DOM's types. */
async function pageWidths(page: Page): Promise<{ scroll: number; client: number; body: number }> {
  return page.evaluate(
    `({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, body: document.body.scrollWidth })`,
  );
}

describe.skipIf(!HAVE_CHROMIUM)(`console layout on a laptop and a phone (skipped when ${NO_CHROMIUM_REASON})`, () => {
  beforeAll(async () => {
    // wrist_3 stalls, not wrist_2: the unknown stays in flight over its whole path, and with #20's link
    // volumes a wrist_2 swing passes within 3 mm of forearm_link's box, so the envelope refused the
    // shoulder_pan move beside it (the later cases waited for a motion that never came).
    rig = await ConsoleRig.start("layout", { simArgs: ["--stall-joint", "wrist_3"] });
  }, 60_000);
  afterAll(async () => rig?.stop());

  it("puts a pending unknown above the fold at 1280x800 and never scrolls sideways at 390x844", async () => {
    const result = await rig.call("layout-1", "move_joints", { positions: { wrist_3: 0.9, elbow: 1.3 } });
    expect(result.status).toBe("unknown");
    const actionId = result.action_id!;

    const laptop = await rig.open({ width: 1280, height: 800 });
    const card = laptop.page.locator(`[data-action-id="${actionId}"]`);
    await card.waitFor();
    await laptop.page.locator('[data-outcome="partial"]').first().waitFor();
    await rig.shot(laptop.page, "unknown-1280x800.png");
    await laptop.page.screenshot({ path: `test-output/browser/layout/unknown-1280x800-fold.png` });
    const box = await card.locator(".outcomes").boundingBox();
    expect(box).not.toBeNull();
    // The whole decision, its three buttons included, is on the first screen.
    expect(box!.y + box!.height).toBeLessThanOrEqual(800);

    const phone = await rig.open({ width: 390, height: 844 });
    await phone.page.locator(`[data-action-id="${actionId}"]`).waitFor();
    const widths = await pageWidths(phone.page);
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(widths.body).toBeLessThanOrEqual(390);
    await rig.shot(phone.page, "unknown-390x844.png");
    expect([...laptop.problems, ...phone.problems]).toEqual([]);
  });

  it("shows a motion in progress at a glance: MOVING pill, the axis's before and target marks and its band", async () => {
    const { page, problems } = await rig.open({ width: 1280, height: 800 });
    // Slow enough (speed 0.1 over 1.2 rad: about 6 s) to be caught moving.
    const pending = rig.call("layout-slow", "move_joints", { positions: { shoulder_pan: 1.2 }, speed: 0.1 });
    const gauge = page.locator('#gauges [data-axis="shoulder_pan"]');
    await page.locator(`#gauges [data-axis="shoulder_pan"].is-moving`).waitFor();
    await page.locator("#arm", { hasText: "MOVING: shoulder_pan" }).waitFor();
    await gauge.locator('.mark-target[visibility="visible"]').waitFor();
    await gauge.locator('.mark-before[visibility="visible"]').waitFor();
    expect(await gauge.locator(".gauge-detail").textContent()).toContain("target 1.200");
    await rig.shot(page, "moving-1280x800.png");
    expect((await pending).status).toBe("done");
    await page.locator('#gauges [data-axis="shoulder_pan"]:not(.is-moving)').waitFor();
    await gauge.locator('.mark-target[visibility="hidden"]').waitFor({ state: "attached" });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("history: filters by state, says who settled each row and when, and the unknown's card links to its row", async () => {
    const { page, problems } = await rig.open({ width: 1280, height: 800 });
    const unknown = (await rig.api<{ actions: { action_id: string }[] }>("GET", "/v1/actions?state=unknown")).json
      .actions[0]!.action_id;
    await page.locator(".hrow").first().waitFor();
    expect(await page.locator('.hrow[data-state="done"] .h-who').first().textContent()).toMatch(
      /^settled by (completion|observation) at \d/,
    );
    await page.selectOption("#history-filter", "unknown");
    await page.locator('.hrow:not([data-state="unknown"])').first().waitFor({ state: "detached" });
    expect(await page.locator(".hrow").count()).toBeGreaterThan(0);
    await page.selectOption("#history-filter", "done");
    await page.locator(`[id="row-${unknown}"]`).waitFor({ state: "detached" });
    // The card's link widens the filter again and brings the row into view.
    await page.locator(`[data-action-id="${unknown}"] a[href="#row-${unknown}"]`).click();
    const row = page.locator(`[id="row-${unknown}"].wanted`);
    await row.waitFor();
    expect(await row.isVisible()).toBe(true);
    expect(await page.locator("#history-filter").inputValue()).toBe("");
    await rig.shot(page, "history-link.png");
    expect(problems).toEqual([]);
    await page.close();
  });
});
