import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

let rig: ConsoleRig;

describe.skipIf(!HAVE_CHROMIUM)(
  `console liveness: the browser's stream and the arm link apart (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      rig = await ConsoleRig.start("liveness");
    }, 60_000);
    afterAll(async () => rig?.stop());

    it("says the arm link is lost within a second of the simulator dying, and greys the values as last seen, never now", async () => {
      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      await page.locator("#link", { hasText: "ARM LINK: CONNECTED" }).waitFor();
      const elbow = page.locator('#gauges [data-axis="elbow"]');
      await elbow.waitFor();
      expect(await elbow.getAttribute("class")).not.toContain("stale");
      // Every pill is announced to screen readers.
      for (const id of ["stream", "link", "arm", "need"])
        expect(await page.locator(`#${id}`).getAttribute("aria-live")).toBe("polite");
      await rig.shot(page, "connected.png");

      const killedAt = Date.now();
      rig.sim.child.kill("SIGKILL");
      await page.locator("#link", { hasText: /ARM LINK: (RECONNECTING|DOWN)/ }).waitFor({ timeout: 5000 });
      const saidAfterMs = Date.now() - killedAt;
      await page.locator('#gauges [data-axis="elbow"].stale').waitFor({ timeout: 5000 });
      const staleAfterMs = Date.now() - killedAt;
      console.log(`arm link pill changed ${saidAfterMs} ms after SIGKILL; values greyed after ${staleAfterMs} ms`);
      // The requirement: the arm indicator says so within a second.
      expect(saidAfterMs).toBeLessThan(1000);
      expect(staleAfterMs).toBeLessThan(1000);

      // The browser's own stream is still fine, and says so separately.
      expect(await page.locator("#stream").textContent()).toBe("EVENTS: LIVE");
      expect(await page.locator("#link").getAttribute("class")).toContain("bad");
      // Old values stay visible but marked as old: "last seen N s ago", never shown as now.
      await page.locator('#gauges [data-axis="elbow"] .gauge-value', { hasText: /last seen \d+ s ago/ }).waitFor();
      await page.locator("#age", { hasText: "STALE" }).waitFor();
      await page.locator("#arm", { hasText: "LAST SEEN" }).waitFor();
      await rig.shot(page, "link-down.png");

      // Then the bridge itself goes: the browser's own stream says so, and the
      // arm link — known only through that stream — is no longer claimed either way.
      rig.serve.child.kill("SIGKILL");
      await page.locator("#stream", { hasText: /EVENTS: LOST since .*, retrying/ }).waitFor();
      await page.locator("#link", { hasText: "ARM LINK: NOT KNOWN" }).waitFor();
      expect(await page.locator("#link").getAttribute("class")).toContain("unknown");
      // Nor does it claim that nothing waits for the operator.
      await page.locator("#need", { hasText: "DECISIONS: NOT KNOWN" }).waitFor();
      expect(await page.locator("#nothing").isVisible()).toBe(false);
      expect(await elbow.getAttribute("class")).toContain("stale");
      await rig.shot(page, "bridge-down.png");
      // The cut stream, a request the kill caught mid-answer (reset) and the refused reconnects are logged by
      // chromium: those and only those are expected.
      expect(
        problems.filter(
          (p) => !/ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_INCOMPLETE_CHUNKED_ENCODING|Failed to fetch/.test(p),
        ),
      ).toEqual([]);
    });
  },
);

describe.skipIf(!HAVE_CHROMIUM)(
  `console liveness: an arm that loses power mid-motion and comes back (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    let powerRig: ConsoleRig;
    beforeAll(async () => {
      powerRig = await ConsoleRig.start("power-loss", {
        simArgs: ["--power-loss-joint", "elbow", "--power-loss-ms", "2500"],
      });
    }, 60_000);
    afterAll(async () => powerRig?.stop());

    it("the link pill says when the next try is while the arm is away, then that it came back after a power loss; the motion was never re-sent", async () => {
      const { page, problems } = await powerRig.open({ width: 1280, height: 800 });
      await page.locator("#link", { hasText: "ARM LINK: CONNECTED" }).waitFor();
      const call = powerRig.call("pl-1", "move_joints", { positions: { elbow: 1.2 }, speed: 0.3 });
      await page
        .locator("#link", { hasText: /ARM LINK: RECONNECTING since .* \(attempt \d+, next try \d/ })
        .waitFor({ timeout: 10_000 });
      await powerRig.shot(page, "reconnecting.png");
      await page
        .locator("#link", { hasText: /ARM LINK: CONNECTED \(back after a power loss or restart at / })
        .waitFor({ timeout: 15_000 });
      expect(await page.locator("#link").getAttribute("class")).toContain("ok");
      await powerRig.shot(page, "back-after-power-loss.png");
      const out = await call;
      // Cut short by the power loss: never done by completion, whatever the observation found.
      expect(out).not.toMatchObject({ status: "done", settled_by: "completion" });
      // Ground truth: one motion, one reboot; nothing sent again when the arm came back.
      const effects = powerRig.effects();
      expect(effects.filter((e) => e.event === "motion_start")).toHaveLength(1);
      expect(effects.filter((e) => e.event === "reboot")).toHaveLength(1);
      expect(problems).toEqual([]);
    }, 60_000);
  },
);
