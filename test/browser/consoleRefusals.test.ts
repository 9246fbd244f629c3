import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

let rig: ConsoleRig;

/**
 * A motion refused before anything was sent has no ledger row, yet an
 * operator needs to see it: a model held back by an unknown motion only an
 * operator can settle keeps being refused, and History is where they look.
 */
describe.skipIf(!HAVE_CHROMIUM)(`console History shows refusals (skipped when ${NO_CHROMIUM_REASON})`, () => {
  beforeAll(async () => {
    rig = await ConsoleRig.start("refusals", { simArgs: ["--stall-joint", "wrist_2"] });
  }, 60_000);
  afterAll(async () => rig?.stop());

  it("a move blocked by an unknown motion stands in History as refused, nothing sent, with what the model was told", async () => {
    const stalled = await rig.call("stall-w2", "move_joints", { positions: { wrist_2: 0.8 } });
    expect(stalled.status).toBe("unknown");
    const { page, problems } = await rig.open({ width: 1280, height: 800 });

    const before = rig.effects().filter((e) => e.event === "motion_start").length;
    const refused = await rig.call("refused-w2", "move_joints", { positions: { wrist_2: -0.2 } });
    expect(refused.status).toBe("blocked");
    // Ground truth: the simulator started nothing for it.
    expect(rig.effects().filter((e) => e.event === "motion_start").length).toBe(before);

    const row = page.locator('#history .hrow[data-state="refused"][data-call-id="refused-w2"]');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.locator(".badge").textContent()).toBe("Refused: blocked");
    expect(await row.locator(".h-who").textContent()).toContain("nothing was sent");
    expect(await row.locator(".h-msg p").textContent()).toContain(stalled.action_id!);
    // The unknown motion's own row is there too, newer rows first: the refusal came after it.
    const states: (string | null)[] = [];
    for (const r of await page.locator("#history .hrow").all()) states.push(await r.getAttribute("data-state"));
    expect(states.indexOf("refused")).toBeLessThan(states.indexOf("unknown"));
    expect(problems).toEqual([]);
  }, 90_000);
});
