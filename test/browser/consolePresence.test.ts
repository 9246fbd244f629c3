import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { DEFAULT_CONFIG_PATH } from "../../src/config/loadConfig.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

/**
 * Hold-to-run in the console: the operator names themselves, the page
 * heartbeats, the header says who is present (or what is missing), a motion
 * refused for lack of presence is told in words — and what moved is read
 * from the simulator's effects log.
 */
let rig: ConsoleRig;

describe.skipIf(!HAVE_CHROMIUM)(`console operator presence (skipped when ${NO_CHROMIUM_REASON})`, () => {
  beforeAll(async () => {
    rig = await ConsoleRig.start("presence", {
      serveConfig: (dir) => {
        const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
        raw.arm!.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm!.urdf));
        const path = join(dir, "arm.yaml");
        writeFileSync(path, stringify({ ...raw, operator_presence: { required: true, timeout_ms: 1500 } }));
        return path;
      },
    });
  }, 60_000);
  afterAll(async () => rig?.stop());

  const starts = (): number => rig.effects().filter((e) => e.event === "motion_start").length;

  it("shows no operator present until one is named, says why a motion was refused, then admits it once named; closing the page ends presence", async () => {
    const { page, problems } = await rig.open({ width: 390, height: 844 });
    // Once its first heartbeat is in, the bridge knows a console is open, without a name.
    await page.locator("#presence.bad", { hasText: /NO OPERATOR PRESENT.*no operator has typed their name/ }).waitFor();
    // The name field is on screen even with nothing waiting: hold-to-run needs it.
    expect(await page.locator("#operator").isVisible()).toBe(true);

    const before = starts();
    const refused = await rig.call("unnamed", "move_joints", { positions: { elbow: 0.35 }, speed: 1 });
    expect(refused.status).toBe("blocked");
    await page.locator("#presence-refusal", { hasText: "REFUSED" }).waitFor();
    expect(await page.locator("#presence-refusal").textContent()).toMatch(
      /move_joints \(call unnamed\).*REFUSED for want of an operator; nothing was sent/,
    );
    await rig.shot(page, "presence-absent-390x844.png");
    expect(starts()).toBe(before);

    await page.locator("#operator").fill("Grace Hopper");
    await page.locator("#presence.ok", { hasText: "Grace Hopper is present (this console)" }).waitFor();
    const state = await rig.api<{ presence?: { operator: string | null } }>("GET", "/v1/state");
    expect(state.json.presence?.operator).toBe("Grace Hopper");
    const ran = await rig.call("named", "move_joints", { positions: { elbow: 0.35 }, speed: 1 });
    expect(ran.status).toBe("done");
    expect(rig.effects().filter((e) => e.event === "motion_start" && e.action_id === ran.action_id)).toHaveLength(1);
    await rig.shot(page, "presence-present-390x844.png");
    expect(problems).toEqual([]);

    // The page goes away: its goodbye ends presence at once, and motion is refused again.
    await page.close({ runBeforeUnload: true });
    for (let i = 0; ; i++) {
      const p = await rig.api<{ operator: string | null }>("GET", "/v1/presence");
      if (p.json.operator === null) break;
      expect(i, "presence ends within the timeout once the console is closed").toBeLessThan(40);
      await new Promise((res) => setTimeout(res, 100));
    }
    expect((await rig.call("closed", "move_joints", { positions: { elbow: 0.2 }, speed: 1 })).status).toBe("blocked");
  }, 90_000);
});
