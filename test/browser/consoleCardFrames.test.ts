import { PNG } from "pngjs";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

let rig: ConsoleRig;

async function shotOf(img: Locator): Promise<PNG> {
  return PNG.sync.read(await img.screenshot());
}

/** Distinct colours (4 bits per channel): a blank or one-colour image has one or two. */
function colours(png: PNG): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4)
    seen.add(((png.data[i]! >> 4) << 8) | ((png.data[i + 1]! >> 4) << 4) | (png.data[i + 2]! >> 4));
  return seen.size;
}

function changedPixels(a: PNG, b: PNG): number {
  expect([b.width, b.height]).toEqual([a.width, a.height]);
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (
      Math.abs(a.data[i]! - b.data[i]!) > 48 ||
      Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 48 ||
      Math.abs(a.data[i + 2]! - b.data[i + 2]!) > 48
    )
      n++;
  }
  return n;
}

describe.skipIf(!HAVE_CHROMIUM)(
  `console: camera frames on an unknown card (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      // The next shoulder_pan motion stalls half-way: the arm moved, the bridge cannot tell whether it arrived.
      rig = await ConsoleRig.start("card-frames", { simArgs: ["--stall-joint", "shoulder_pan"] });
    }, 60_000);
    afterAll(async () => rig?.stop());

    it("shows the overhead frame from before the call and after it settled: both non-blank, different because the arm moved", async () => {
      const stalled = await rig.call("pan-stall", "move_joints", { positions: { shoulder_pan: 1.4 }, speed: 1 });
      expect(stalled.status).toBe("unknown");
      // Ground truth: the pan really moved (half-way), so the two pictures must differ.
      const end = rig.effects().find((e) => e.event === "motion_end" && e.action_id === stalled.action_id);
      expect(end).toBeDefined();

      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const card = page.locator(`[data-action-id="${stalled.action_id}"]`);
      await card.waitFor();
      const before = card.locator('img[data-card-frame="overhead"][data-frame="before"]');
      const after = card.locator('img[data-card-frame="overhead"][data-frame="after"]');
      for (const which of ["before", "after"]) {
        await card.locator(`img[data-card-frame="overhead"][data-frame="${which}"]`).waitFor();
        // Evaluated in the page as a string: this file is type-checked without the DOM's types (and the page's CSP forbids waitForFunction's eval).
        const loaded = `(() => { const i = document.querySelector('[data-action-id="${stalled.action_id}"] img[data-card-frame="overhead"][data-frame="${which}"]'); return i !== null && i.complete && i.naturalWidth > 0; })()`;
        for (let i = 0; !(await page.evaluate<boolean>(loaded)); i++) {
          expect(i, `the ${which} frame loads within 10 s`).toBeLessThan(100);
          await page.waitForTimeout(100);
        }
      }
      const caption = (await card.locator('.card-frame[data-frame="before"] figcaption').textContent()) ?? "";
      // The simulated camera draws the newest pose the moment the call is queued: truly before the send.
      expect(caption).toMatch(/before the call, taken .* \d+ ms before it was sent/);
      expect(await card.locator(".card-frame figcaption", { hasText: /after it settled/ }).count()).toBe(1);
      await card.scrollIntoViewIfNeeded();
      await rig.shot(page, "unknown-card-frames-1280x800.png");
      const b = await shotOf(before);
      const a = await shotOf(after);
      expect(colours(b), "the before frame is not blank").toBeGreaterThan(8);
      expect(colours(a), "the after frame is not blank").toBeGreaterThan(8);
      expect(changedPixels(b, a), "the frames differ: the arm moved between them").toBeGreaterThan(100);
      expect(problems).toEqual([]);
    }, 90_000);
  },
);
