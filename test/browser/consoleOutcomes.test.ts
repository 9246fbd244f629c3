import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

let rig: ConsoleRig;

/** Each outcome on its own joint: the simulator stalls the next motion of each half-way, once. */
const CASES = [
  { outcome: "reached", joint: "wrist_1", state: "confirmed_done", status: "done" },
  { outcome: "partial", joint: "wrist_2", state: "confirmed_partial", status: "stopped" },
  { outcome: "not_moved", joint: "wrist_3", state: "confirmed_not_done", status: "failed" },
] as const;

describe.skipIf(!HAVE_CHROMIUM)(`console: the three truthful outcomes (skipped when ${NO_CHROMIUM_REASON})`, () => {
  beforeAll(async () => {
    rig = await ConsoleRig.start("outcomes", { simArgs: ["--stall-joint", CASES.map((c) => c.joint).join(",")] });
  }, 60_000);
  afterAll(async () => rig?.stop());

  it.each(CASES)(
    "$outcome: the ledger says $state, $joint is released and its next motion runs once",
    async ({ outcome, joint, state, status }) => {
      const stalled = await rig.call(`stall-${outcome}`, "move_joints", { positions: { [joint]: 0.8 } });
      expect(stalled.status).toBe("unknown");
      const actionId = stalled.action_id!;
      // Quarantined: a motion on that joint is refused before anything is sent.
      const before = rig.effects().length;
      expect((await rig.call(`blocked-${outcome}`, "move_joints", { positions: { [joint]: -0.2 } })).status).toBe(
        "blocked",
      );
      expect(rig.effects().length).toBe(before);

      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const card = page.locator(`[data-action-id="${actionId}"]`);
      const button = card.locator(`button[data-outcome="${outcome}"]`);
      await button.waitFor();
      // The button says what follows, in the bridge's words; the model's own words are beside it.
      const options = (
        await rig.api<{ confirm_options: { outcome: string; what_follows: string; model_is_told: string }[] }>(
          "GET",
          `/v1/actions/${actionId}`,
        )
      ).json.confirm_options;
      const option = options.find((o) => o.outcome === outcome)!;
      const text = (await button.textContent()) ?? "";
      expect(text).toContain(`Releases: ${joint}`);
      expect(text).toContain(option.what_follows);
      expect(await card.locator(`[data-option="${outcome}"] .o-told`).textContent()).toContain(`action_id=${actionId}`);
      // No answer without a name (a name typed earlier is remembered, so clear it).
      await page.fill("#operator", "");
      expect(await button.isDisabled()).toBe(true);
      await rig.shot(page, `${outcome}-card.png`);
      // The decision is on the first screen of a 1280x800 laptop, buttons included.
      const box = await card.locator(".outcomes").boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(800);

      await page.fill("#operator", "Ada Lovelace");
      await card.locator('textarea[data-role="note"]').fill(`saw ${outcome}`);
      await button.click();
      // The stall left the joint half-way: "reached" against that report takes a second, deliberate step.
      if (outcome === "reached") await card.locator('[data-role="confirm-reached"]').click();
      await page.locator("#banner", { hasText: actionId }).waitFor();
      await card.waitFor({ state: "detached" });
      const row = page.locator(`[id="row-${actionId}"]`);
      await row.locator(".h-who", { hasText: "Ada Lovelace" }).waitFor();
      await rig.shot(page, `${outcome}-confirmed.png`);

      const recorded = await rig.api("GET", `/v1/actions/${actionId}`);
      expect(recorded.json).toMatchObject({
        state,
        operator: "Ada Lovelace",
        operator_note: `saw ${outcome}`,
        operator_outcome: outcome,
        settled_by: "operator",
      });
      expect(recorded.json.observed_pose).toHaveProperty(joint);
      expect((recorded.json.result as { status: string }).status).toBe(status);
      const s = await rig.api<{ quarantined: Record<string, unknown> }>("GET", "/v1/state");
      expect(Object.keys(s.json.quarantined)).not.toContain(`joint:${joint}`);

      // Released for real: the next motion on that joint runs, exactly once, by the simulator's own account.
      const next = await rig.call(`next-${outcome}`, "move_joints", { positions: { [joint]: -0.2 } });
      expect(next.status).toBe("done");
      const starts = rig.effects().filter((e) => e.event === "motion_start" && e.action_id === next.action_id);
      expect(starts).toHaveLength(1);
      expect(starts[0]!.joints).toEqual([joint]);
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});
