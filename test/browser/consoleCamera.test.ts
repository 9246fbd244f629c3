import { PNG } from "pngjs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

let rig: ConsoleRig;

/** The overhead camera's frame as the page shows it, decoded. */
async function frameShot(page: Page): Promise<PNG> {
  return PNG.sync.read(await page.locator('img[data-camera="overhead"]').screenshot());
}

/** Distinct colours (quantised to 4 bits per channel): a blank or one-colour image has one or two. */
function colours(png: PNG): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4)
    seen.add(((png.data[i]! >> 4) << 8) | ((png.data[i + 1]! >> 4) << 4) | (png.data[i + 2]! >> 4));
  return seen.size;
}

/** Pixels whose colour differs by more than 48 in any channel. */
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

describe.skipIf(!HAVE_CHROMIUM)(`console camera (skipped when ${NO_CHROMIUM_REASON})`, () => {
  beforeAll(async () => {
    rig = await ConsoleRig.start("camera");
  }, 60_000);
  afterAll(async () => rig?.stop());

  it("shows the overhead camera's newest frame, with its age, that changes when the arm moves; a click gives table coordinates", async () => {
    const { page, problems } = await rig.open({ width: 1280, height: 800 });
    const img = page.locator('img[data-camera="overhead"]');
    await img.waitFor();
    for (
      let i = 0;
      !(await page.evaluate(`document.querySelector('img[data-camera="overhead"]').naturalWidth > 0`));
      i++
    ) {
      expect(i, "a frame arrives within 10 s").toBeLessThan(100);
      await page.waitForTimeout(100);
    }
    await page.locator('figure[data-camera="overhead"] figcaption', { hasText: /taken \d+\.\d s ago/ }).waitFor();
    const before = await frameShot(page);
    expect(colours(before), "the frame is not blank").toBeGreaterThan(8);
    await rig.shot(page, "camera-before-1280x800.png");

    expect(
      (await rig.call("cam-move", "move_joints", { positions: { shoulder_pan: 1.2, elbow: 0.3 }, speed: 1 })).status,
    ).toBe("done");
    // Two refreshes of the frame (one a second).
    await page.waitForTimeout(2500);
    const after = await frameShot(page);
    const changed = changedPixels(before, after);
    expect(changed, "the frame shows the arm's new pose").toBeGreaterThan(200);
    await rig.shot(page, "camera-after-1280x800.png");

    // The sim camera is calibrated: its centre maps to a table point.
    const box = (await img.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page
      .locator('figure[data-camera="overhead"] .where', { hasText: /table x=-?\d+\.\d{3} m, y=-?\d+\.\d{3} m/ })
      .waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("refuses an unknown camera naming the configured ones", async () => {
    const r = await rig.api<{ error: { code: string; message: string; choices?: string[] } }>(
      "GET",
      "/v1/cameras/nope/frame",
    );
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("ARMB_ERR_CAMERA_UNKNOWN");
    expect(r.json.error.choices).toEqual(["overhead"]);
    expect(r.json.error.message).toContain("the configured cameras: overhead");
  });
});
