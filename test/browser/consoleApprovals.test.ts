import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ROOT } from "../surfaces/cli/processes.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON, type CallOutput } from "./consoleHarness.js";

let rig: ConsoleRig;

/** The simulated arm with move_joints behind the approval gate (its URDF path made absolute: the copy lives elsewhere). */
function gatedConfig(dir: string): string {
  const config = parse(readFileSync(join(ROOT, "config", "sim-arm.yaml"), "utf8")) as {
    arm: { urdf: string };
    approval?: unknown;
  };
  config.arm.urdf = join(ROOT, "config", config.arm.urdf);
  config.approval = { move_joints: "always", set_gripper: "never" };
  const file = join(dir, "gated-arm.yaml");
  writeFileSync(file, stringify(config));
  return file;
}

async function pageWidths(page: Page): Promise<{ scroll: number; client: number }> {
  return page.evaluate(
    `({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })`,
  );
}

describe.skipIf(!HAVE_CHROMIUM)(
  `console approvals: asked live, approved runs once, declined sends nothing (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      rig = await ConsoleRig.start("approvals", { serveConfig: gatedConfig });
    }, 60_000);
    afterAll(async () => rig?.stop());

    it("shows a request live with its tool, args and target on the gauges; approve runs the motion exactly once", async () => {
      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const pending: Promise<CallOutput> = rig.call("gated-1", "move_joints", { positions: { elbow: 1.6 } });
      const card = page.locator("[data-approval-id]");
      await card.waitFor();
      expect(await card.textContent()).toContain("move_joints");
      expect(await card.locator(".args").textContent()).toBe('move_joints {"positions":{"elbow":1.6}}');
      // The requested target is drawn, on the card and on the arm's own gauge.
      await card.locator('[data-axis="elbow"] .mark-requested[visibility="visible"]').waitFor();
      await page.locator('#gauges [data-axis="elbow"] .mark-requested[visibility="visible"]').waitFor();
      await page.locator("#need", { hasText: "1 TO APPROVE" }).waitFor();
      const box = await card.locator(".outcomes").boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(800);
      await rig.shot(page, "request-1280x800.png");
      // Nothing moved while it waits.
      expect(rig.effects().filter((e) => e.event === "motion_start")).toHaveLength(0);

      await page.setViewportSize({ width: 390, height: 844 });
      const widths = await pageWidths(page);
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      await rig.shot(page, "request-390x844.png");
      await page.setViewportSize({ width: 1280, height: 800 });

      await page.fill("#operator", "Grace Hopper");
      await card.locator('textarea[data-role="note"]').fill("area clear");
      await card.locator('button[data-answer="approve"]').click();
      const result = await pending;
      expect(result.status).toBe("done");
      await card.waitFor({ state: "detached" });
      await page.locator("#banner", { hasText: "approved" }).waitFor();
      const starts = rig.effects().filter((e) => e.event === "motion_start");
      expect(starts).toHaveLength(1);
      expect(starts[0]).toMatchObject({ action_id: result.action_id, joints: ["elbow"] });
      // The history row says who approved it and what they said, from the ledger.
      await page
        .locator(`#row-${result.action_id} .h-approved`, { hasText: /^approved by Grace Hopper at .*: area clear$/ })
        .waitFor();
      await rig.shot(page, "approved.png");
      expect(problems).toEqual([]);
      await page.close();
    });

    it("decline: the call is rejected with the operator's reason and the simulator records no motion", async () => {
      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const before = rig.effects().length;
      const pending: Promise<CallOutput> = rig.call("gated-2", "move_joints", { positions: { wrist_1: 1.0 } });
      const card = page.locator("[data-approval-id]");
      await card.waitFor();
      await page.fill("#operator", "Grace Hopper");
      await card.locator('textarea[data-role="note"]').fill("someone is in the cell");
      await card.locator('button[data-answer="decline"]').click();
      const result = await pending;
      expect(result.status).toBe("rejected");
      expect(result.message).toContain("someone is in the cell");
      await card.waitFor({ state: "detached" });
      expect(rig.effects().length).toBe(before);
      const listed = await rig.api<{ approvals: unknown[] }>("GET", "/v1/approvals");
      expect(listed.json.approvals).toEqual([]);
      await rig.shot(page, "declined.png");
      expect(problems).toEqual([]);
      await page.close();
    });
  },
);
