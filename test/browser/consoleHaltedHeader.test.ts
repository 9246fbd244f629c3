import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

/**
 * The console while halted, on a phone and a laptop: red, said once, in a
 * sticky header that keeps to a quarter of the screen; released by the name
 * typed by whoever presses RELEASE (never one the console remembered), told
 * as a short receipt that the next release replaces and that fades.
 */
let rig: ConsoleRig | undefined;
afterEach(async () => {
  await rig?.stop();
  rig = undefined;
});

const BAD = "rgb(176, 0, 32)";

/** Evaluated in the page as strings: this file is type-checked without the DOM's types. */
const headerHeight = (page: Page): Promise<number> =>
  page.evaluate(`document.querySelector("header").getBoundingClientRect().height`);
const borderColour = (page: Page, id: string): Promise<string> =>
  page.evaluate(`getComputedStyle(document.getElementById(${JSON.stringify(id)})).borderTopColor`);
/** Visible elements of the header that say HALTED, the pills apart. */
const haltedBanners = (page: Page): Promise<number> =>
  page.evaluate(
    `[...document.querySelectorAll("header > *:not(.pills):not(h1):not(#halt)")].filter(e => e.offsetParent !== null && /HALTED/.test(e.textContent)).length`,
  );

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

describe.skipIf(!HAVE_CHROMIUM)(`console while halted (skipped when ${NO_CHROMIUM_REASON})`, () => {
  it.each(VIEWPORTS)(
    "at $width x $height: halted is red and said once, the pills say so, the header keeps under a quarter of the screen",
    async (viewport) => {
      rig = await ConsoleRig.start(`halted-header-${viewport.width}`);
      const r = rig;
      const { page, problems } = await r.open(viewport);
      await page.locator("#need", { hasText: "NOTHING WAITING" }).waitFor();
      if (viewport.width >= 1100) {
        // Nothing waits: the arm takes the room — the 3D view and the first gauges on the first screen, the keep-in box in a wide view.
        const panel = await page.locator("#arm-panel").boundingBox();
        expect(panel!.width).toBeGreaterThan(0.7 * viewport.width);
        const canvas = await page.locator("#arm3d canvas").first().boundingBox();
        expect(canvas!.y + canvas!.height).toBeLessThanOrEqual(viewport.height);
        expect(canvas!.width).toBeGreaterThan(500);
        const gauge = await page.locator("#gauges .gauge").first().boundingBox();
        expect(gauge!.y + gauge!.height).toBeLessThanOrEqual(viewport.height);
      }
      await r.shot(page, `idle-${viewport.width}x${viewport.height}.png`);

      await page.locator("#halt").click();
      await page.locator("#latch", { hasText: "HALTED" }).waitFor();
      await page.locator("#arm.bad", { hasText: "HALTED" }).waitFor();
      await page.locator("#need:not(.ok)", { hasText: "RELEASE" }).waitFor();
      await r.shot(page, `halted-${viewport.width}x${viewport.height}.png`);
      expect(await borderColour(page, "latch")).toBe(BAD);
      expect(await haltedBanners(page)).toBe(1);
      expect(await headerHeight(page)).toBeLessThan(0.25 * viewport.height);

      // Released: a short receipt, not the latch's look, and it goes away by itself.
      await page.fill("#release-name", "dan");
      await page.locator("#release").click();
      await page.locator("#latch").waitFor({ state: "hidden" });
      const receipt = page.locator("#halt-outcome", { hasText: "Released by dan" });
      await receipt.waitFor();
      expect(await borderColour(page, "halt-outcome")).not.toBe(BAD);
      await page.locator("#arm.ok", { hasText: "ARM: STILL" }).waitFor();
      expect(await headerHeight(page)).toBeLessThan(0.25 * viewport.height);
      await r.shot(page, `released-${viewport.width}x${viewport.height}.png`);
      await receipt.waitFor({ state: "hidden", timeout: 20_000 });
      expect(problems).toEqual([]);
    },
    240_000,
  );

  it("at 390 x 844: the release name is typed for this release — a remembered name never refills it, the error follows the field, the receipt names the newest releaser", async () => {
    rig = await ConsoleRig.start("release-name");
    const r = rig;
    const { page, problems } = await r.open({ width: 390, height: 844 });
    // ben answered for this console before: his name is remembered for the decision cards.
    await page.evaluate(`localStorage.setItem("armbridge.operator", "ben")`);
    await page.reload();
    await page.locator("#link.ok").waitFor();
    expect(await page.inputValue("#operator")).toBe("ben");

    await page.locator("#halt").click();
    await page.locator("#latch", { hasText: "HALTED" }).waitFor();
    expect(await page.inputValue("#release-name")).toBe("");
    await page.fill("#release-name", "someone");
    await page.fill("#release-name", "");
    // Several state updates later (one per status, several a second) the field is still as left.
    await page.waitForTimeout(3500);
    expect(await page.inputValue("#release-name")).toBe("");

    await page.locator("#release").click();
    const error = page.locator("#release-error", { hasText: "Type your name to release the halt" });
    await error.waitFor();
    expect((await r.api<{ halted: boolean }>("GET", "/v1/state")).json.halted).toBe(true);
    await r.shot(page, "release-name-missing-390x844.png");
    await page.fill("#release-name", "dan");
    await error.waitFor({ state: "hidden" });

    const sent = page.waitForRequest((q) => q.url().endsWith("/v1/halt/release"));
    await page.locator("#release").click();
    expect((await sent).postDataJSON()).toMatchObject({ operator: "dan" });
    await page.locator("#halt-outcome", { hasText: "Released by dan" }).waitFor();

    // Another console halts and ana releases it: this console's receipt names ana, not dan.
    expect((await r.api("POST", "/v1/halt", { source: "http", operator: "eve" })).status).toBe(200);
    await page.locator("#latch", { hasText: "HALTED" }).waitFor();
    expect(await page.inputValue("#release-name")).toBe("");
    expect((await r.api("POST", "/v1/halt/release", { operator: "ana" })).status).toBe(200);
    await page.locator("#halt-outcome", { hasText: "Released by ana" }).waitFor();
    expect(await page.locator("#halt-outcome").textContent()).not.toContain("dan");
    await r.shot(page, "released-by-ana-390x844.png");
    expect(problems).toEqual([]);
  }, 240_000);

  it("at 390 x 844: a HALT that never reached the bridge stops saying so once the bridge answers again", async () => {
    rig = await ConsoleRig.start("halt-unsent");
    const r = rig;
    const { page, problems } = await r.open({ width: 390, height: 844 });
    // The HALT request is cut before it reaches the bridge; everything else gets through.
    await page.route("**/v1/halt", (route) => route.abort("connectionrefused"));
    await page.locator("#halt").click();
    const outcome = page.locator("#halt-outcome", { hasText: "never reached it" });
    await outcome.waitFor();
    expect(await outcome.textContent()).not.toContain("emergency stop");
    expect((await r.api<{ halted: boolean }>("GET", "/v1/state")).json.halted).toBe(false);
    await r.shot(page, "halt-unsent-390x844.png");
    await page.unroute("**/v1/halt");
    await page.locator("#halt").click();
    await page.locator("#latch", { hasText: "HALTED" }).waitFor();
    expect(await page.locator("#halt-outcome").isVisible()).toBe(false);
    // The aborted request is the page's own doing.
    expect(problems.filter((p) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(p))).toEqual([]);
  }, 240_000);
});
