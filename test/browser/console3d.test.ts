import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ROOT } from "../surfaces/cli/processes.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON, OUTPUT_DIR } from "./consoleHarness.js";

// The console's 3D arm: drawn from the envelope's link volumes, it follows
// the arm (checked against the simulator's effects log and the canvas's own
// pixels), shows a call's target as a ghost on its card, greys when the
// arm's state is stale, and says so in words when the browser has no WebGL.

let rig: ConsoleRig;

/** The simulated arm with motions of wrist_1 behind the approval gate (its URDF path made absolute: the copy lives elsewhere). */
function gatedWrist(dir: string): string {
  const config = parse(readFileSync(join(ROOT, "config", "sim-arm.yaml"), "utf8")) as {
    arm: { urdf: string };
    approval?: unknown;
  };
  config.arm.urdf = join(ROOT, "config", config.arm.urdf);
  config.approval = { move_joints: { joints: ["wrist_1"] } };
  const file = join(dir, "gated-wrist.yaml");
  writeFileSync(file, stringify(config));
  return file;
}

interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly data: Buffer;
}

/** The canvas's pixels as the page drew them (a 2D canvas: toDataURL needs no preserved drawing buffer). */
async function pixelsOf(canvas: Locator): Promise<Pixels> {
  // This file is type-checked without the DOM's types: the canvas is described, not imported.
  const url = await canvas.evaluate((c) =>
    (c as unknown as { toDataURL(type: string): string }).toDataURL("image/png"),
  );
  const png = PNG.sync.read(Buffer.from(url.slice(url.indexOf(",") + 1), "base64"));
  return { width: png.width, height: png.height, data: png.data };
}

/** Share of pixels that differ by more than a rounding's worth in any channel. */
function changedShare(a: Pixels, b: Pixels): number {
  expect([b.width, b.height]).toEqual([a.width, a.height]);
  let changed = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (
      Math.abs(a.data[i]! - b.data[i]!) > 24 ||
      Math.abs(a.data[i + 1]! - b.data[i + 1]!) > 24 ||
      Math.abs(a.data[i + 2]! - b.data[i + 2]!) > 24
    )
      changed++;
  }
  return changed / (a.width * a.height);
}

/** Pixels of a colour family: the ghost's purple (red and blue above green), the live arm's blue (blue well above red), grey (channels alike, not white). */
function count(p: Pixels, kind: "purple" | "blue" | "grey"): number {
  let n = 0;
  for (let i = 0; i < p.data.length; i += 4) {
    const r = p.data[i]!,
      g = p.data[i + 1]!,
      b = p.data[i + 2]!;
    if (kind === "purple" && r > g + 20 && b > g + 35) n++;
    if (kind === "blue" && b > r + 60 && b > g + 20) n++;
    if (kind === "grey" && Math.max(r, g, b) - Math.min(r, g, b) < 10 && r < 200 && r > 120) n++;
  }
  return n;
}

async function frames(canvas: Locator): Promise<number> {
  return Number(await canvas.getAttribute("data-frames"));
}

/** Until the view has drawn once. (Polled from here: the page's CSP forbids the string evaluation waitForFunction uses.) */
async function drawn(page: Page, canvas: Locator): Promise<void> {
  for (let i = 0; (await frames(canvas)) === 0; i++) {
    expect(i, "the view draws within 10 s").toBeLessThan(100);
    await page.waitForTimeout(100);
  }
}

/** Waits until the view has drawn and then stayed unchanged for `quietMs` (nothing moving, no frame pending). */
async function settled(page: Page, canvas: Locator, quietMs = 600): Promise<Pixels> {
  await drawn(page, canvas);
  let last = await frames(canvas);
  for (let tries = 0; tries < 40; tries++) {
    await page.waitForTimeout(quietMs);
    const now = await frames(canvas);
    if (now === last) return pixelsOf(canvas);
    last = now;
  }
  throw new Error("the 3D view never stopped drawing");
}

/**
 * The live view, settled, judged while the arm's state is live: a loaded
 * machine can starve the state stream past stale_after_ms for a moment, and
 * a greyed picture is not the one being judged.
 */
async function settledLive(page: Page, figure: Locator): Promise<Pixels> {
  const canvas = figure.locator("canvas");
  for (let tries = 0; tries < 10; tries++) {
    await page.locator("#arm3d figure.arm3d-live:not(.stale)").waitFor();
    const pixels = await settled(page, canvas);
    if (!(await figure.getAttribute("class"))?.includes("stale")) return pixels;
  }
  throw new Error("the arm's state never stayed live long enough to judge the picture");
}

describe.skipIf(!HAVE_CHROMIUM)(
  `console 3D view: the arm from its link volumes, its target as a ghost (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      rig = await ConsoleRig.start("3d", { serveConfig: gatedWrist, simArgs: ["--stall-joint", "wrist_3"] });
    }, 60_000);
    afterAll(async () => rig?.stop());

    it.each([
      { width: 390, height: 844, pan: 0.7 },
      { width: 1280, height: 800, pan: -0.4 },
    ])(
      "at $width×$height its pixels change when a joint moves (the simulator's effects log shows the move), and it draws only on change",
      async ({ width, height, pan }) => {
        const { page, problems } = await rig.open({ width, height });
        const figure = page.locator("#arm3d figure.arm3d-live");
        const canvas = figure.locator("canvas");
        await canvas.waitFor();
        expect(await figure.locator("figcaption").textContent()).toContain("keep_in box");
        // The camera's first frame lengthens the page (a scroll bar narrows the canvas, which draws again): let it land first.
        for (
          let i = 0;
          !(await page.evaluate(`[...document.querySelectorAll("#cameras img")].every((i) => i.naturalWidth > 0)`));
          i++
        ) {
          expect(i, "the camera's first frame arrives within 10 s").toBeLessThan(100);
          await page.waitForTimeout(100);
        }
        await canvas.scrollIntoViewIfNeeded();
        const before = await settledLive(page, figure);
        expect(count(before, "blue"), "the live arm's volumes are drawn (blue)").toBeGreaterThan(200);

        // Still means (nearly) still: a render loop would draw ~180 frames in 3 s, a redraw per state event 15;
        // drawing on change draws none, or a few if a loaded machine starves the stream into stale and back.
        const idle = await frames(canvas);
        await page.waitForTimeout(3000);
        const idleFrames = (await frames(canvas)) - idle;
        console.log(`3D view at ${width}x${height}: ${idleFrames} frames drawn in 3 s with the arm still`);
        expect(idleFrames).toBeLessThan(8);
        await figure.screenshot({ path: join(OUTPUT_DIR, "3d", `live-before-${width}x${height}.png`) });

        const startsBefore = rig.effects().filter((e) => e.event === "motion_start").length;
        const result = await rig.call(`3d-pan-${width}`, "move_joints", { positions: { shoulder_pan: pan } });
        expect(result.status).toBe("done");
        // Ground truth: the simulator moved shoulder_pan to where it was asked.
        const moves = rig.effects().filter((e) => e.event === "motion_start");
        expect(moves).toHaveLength(startsBefore + 1);
        const end = rig.effects().find((e) => e.event === "motion_end" && e.action_id === result.action_id) as
          { to?: Record<string, number> } | undefined;
        expect(end?.to?.shoulder_pan).toBeCloseTo(pan, 1);

        await page.locator('#gauges [data-axis="shoulder_pan"]:not(.is-moving)').waitFor();
        // The change is the pose's, not a greying: both pictures are of the live arm.
        const after = await settledLive(page, figure);
        const share = changedShare(before, after);
        console.log(
          `3D view at ${width}x${height}: ${(share * 100).toFixed(1)} % of ${after.width}x${after.height} pixels changed when shoulder_pan moved to ${pan}`,
        );
        expect(share).toBeGreaterThan(0.005);
        await figure.screenshot({ path: join(OUTPUT_DIR, "3d", `live-after-${width}x${height}.png`) });
        await rig.shot(page, `page-${width}x${height}.png`);
        expect(problems).toEqual([]);
        await page.close();
      },
    );

    it("draws the target of a call awaiting approval as a ghost on its card; declined, nothing moves", async () => {
      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const startsBefore = rig.effects().filter((e) => e.event === "motion_start").length;
      const pending = rig.call("3d-gated", "move_joints", { positions: { wrist_1: -1.4 } });
      const card = page.locator("[data-approval-id]");
      await card.waitFor();
      const ghost = card.locator('figure[data-ghost="requested"][data-ghost-placed="true"]');
      await ghost.waitFor();
      const canvas = ghost.locator("canvas");
      await ghost.scrollIntoViewIfNeeded();
      await drawn(page, canvas);
      await card.locator("figure.arm3d:not(.stale)").waitFor();
      await page.waitForTimeout(300);
      const seen = await pixelsOf(canvas);
      // Only the volumes the call moves (wrist_1 and after): a small patch of the picture.
      expect(count(seen, "purple"), "the ghost (translucent purple) is drawn on the card").toBeGreaterThan(50);
      expect(count(seen, "blue"), "beside the live arm (blue)").toBeGreaterThan(150);
      expect(
        count(await pixelsOf(page.locator("#arm3d figure.arm3d-live canvas")), "purple"),
        "the arm panel's view has no ghost",
      ).toBe(0);
      expect(await ghost.locator("figcaption").textContent()).toContain("where this call would take it");
      // The 1280x800 decision stays on the first screen: the picture comes after the buttons.
      const buttons = await card.locator(".outcomes").boundingBox();
      await page.evaluate("window.scrollTo(0, 0)");
      expect((await card.locator(".outcomes").boundingBox())!.y + buttons!.height).toBeLessThanOrEqual(800);
      await ghost.screenshot({ path: join(OUTPUT_DIR, "3d", "ghost-approval.png") });
      await rig.shot(page, "approval-1280x800.png");

      await page.fill("#operator", "Ada");
      await card.locator('button[data-answer="decline"]').click();
      expect((await pending).status).not.toBe("done");
      await card.waitFor({ state: "detached" });
      expect(rig.effects().filter((e) => e.event === "motion_start")).toHaveLength(startsBefore);
      expect(problems).toEqual([]);
      await page.close();
    });

    it("draws an unknown motion's target as a ghost on its confirmation card", async () => {
      const result = await rig.call("3d-unknown", "move_joints", { positions: { wrist_3: 0.9, elbow: 1.3 } });
      expect(result.status).toBe("unknown");
      const { page, problems } = await rig.open({ width: 390, height: 844 });
      const ghost = page.locator(
        `[data-action-id="${result.action_id}"] figure[data-ghost="target"][data-ghost-placed="true"]`,
      );
      await ghost.waitFor();
      await ghost.scrollIntoViewIfNeeded();
      await drawn(page, ghost.locator("canvas"));
      const widths = await page.evaluate<{ scroll: number; client: number }>(
        `({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })`,
      );
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      expect(await ghost.locator("figcaption").textContent()).toContain("the target it was asked to reach");
      await ghost.screenshot({ path: join(OUTPUT_DIR, "3d", "ghost-unknown-390x844.png") });
      // Settled here so that the later cases start from a free arm.
      expect(
        (await rig.api("POST", `/v1/actions/${result.action_id}/confirm`, { outcome: "not_moved", operator: "Ada" }))
          .status,
      ).toBe(200);
      await ghost.waitFor({ state: "detached" });
      expect(problems).toEqual([]);
      await page.close();
    });

    it("without WebGL says why in words, and the gauges still work", async () => {
      const page = await rig.context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(`console: ${m.text()}`);
      });
      // As a browser with WebGL turned off answers: no context.
      await page.addInitScript(`{
      const original = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (kind, ...rest) { return /webgl/.test(kind) ? null : original.call(this, kind, ...rest); };
    }`);
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${rig.url}/console#token=browser-test-token-0123456789`);
      await page
        .locator("#arm3d .arm3d-off", { hasText: "3D view unavailable: this browser gives the page no WebGL 2" })
        .waitFor();
      // The gauges show the live pose as ever.
      await page.locator('#gauges [data-axis="elbow"] .gauge-value', { hasText: /\d/ }).waitFor();
      expect(await page.locator("#arm").textContent()).not.toContain("NO DATA");
      await rig.shot(page, "no-webgl.png");
      expect(problems).toEqual([]);
      await page.close();
    });

    it("greys the arm when its state goes stale (the simulator dies)", async () => {
      const { page } = await rig.open({ width: 1280, height: 800 });
      const figure = page.locator("#arm3d figure.arm3d-live");
      const canvas = figure.locator("canvas");
      await canvas.waitFor();
      await canvas.scrollIntoViewIfNeeded();
      const live = await settledLive(page, figure);
      expect(count(live, "blue")).toBeGreaterThan(200);
      rig.sim.child.kill("SIGKILL");
      await page.locator("#arm3d figure.arm3d-live.stale").waitFor({ timeout: 5000 });
      const stale = await settled(page, canvas);
      expect(count(stale, "blue"), "no live-blue arm once stale").toBeLessThan(count(live, "blue") / 10);
      expect(count(stale, "grey") - count(live, "grey"), "the arm is drawn grey").toBeGreaterThan(200);
      expect(await figure.locator("figcaption").textContent()).toContain("STALE");
      await figure.screenshot({ path: join(OUTPUT_DIR, "3d", "stale-1280x800.png") });
      await page.close();
    });
  },
);
