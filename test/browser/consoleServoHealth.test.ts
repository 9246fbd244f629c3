import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../surfaces/cli/processes.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON } from "./consoleHarness.js";

// Servo health in the console, in chromium, on a real `armbridge-sim --bus`
// (the Koch follower's Dynamixel bus) under a real `armbridge serve`:
// wrist_flex starts warm (64 °C, ten degrees under its 70 °C limit) and
// wrist_roll heats 1 °C/s from 68 °C until its own protection trips it.
// The operator sees the warning beside the joint's gauge, then an alarm that
// names the servo and says what to do — and nothing moved for any of it.

describe.skipIf(!HAVE_CHROMIUM)(
  `console servo health on a Dynamixel bus (chromium${HAVE_CHROMIUM ? "" : `: ${NO_CHROMIUM_REASON}`})`,
  () => {
    let rig: ConsoleRig;
    const config = join(ROOT, "config", "koch-follower.yaml");

    beforeAll(async () => {
      rig = await ConsoleRig.start("console-servo-health", {
        simArgs: [
          "--bus",
          "dynamixel_2",
          "--config",
          config,
          "--servo-temperature",
          "wrist_flex=64,wrist_roll=68",
          "--heat-joint",
          "wrist_roll",
        ],
        serveConfig: () => config,
      });
    }, 60_000);
    afterAll(async () => {
      await rig?.stop();
    });

    it.each([
      ["desktop", { width: 1280, height: 800 }],
      ["phone", { width: 390, height: 844 }],
    ] as const)(
      "%s: a warm servo warns beside its gauge; an overheated one raises an alarm naming it with what to do; nothing moves",
      async (name, viewport) => {
        const { page, problems } = await rig.open(viewport);
        const warm = page.locator('[data-servo-health="wrist_flex"]');
        await warm.locator("xpath=self::*[@data-level='warning']").waitFor({ timeout: 15_000 });
        expect(await warm.textContent()).toMatch(
          /^servo 4: 64 °C \(limit 70\) · \d+\.\d V \(\d+\.\d–\d+\.\d\) · load \d+ %$/,
        );
        // A servo with nothing wrong shows its readings untinted.
        await expect(page.locator('[data-servo-health="shoulder_pan"]').getAttribute("data-level")).resolves.toBe("ok");
        const warning = page.locator('#servo-alerts p[data-level="warning"]', { hasText: "servo 4 (wrist_flex)" });
        await warning.waitFor();
        expect(await warning.textContent()).toContain(
          "Servo warning: servo 4 (wrist_flex): 64 °C, near its limit of 70 °C.",
        );
        await rig.shot(page, `${name}-warning.png`);

        // wrist_roll passes 70 °C within a few seconds of the simulator's start: its protection shuts it down.
        // At exactly its limit it is already an alarm ("at its limit"); the shutdown follows, so wait for that one.
        const alarm = page.locator('#servo-alerts p[data-level="alarm"]', {
          hasText: "servo 5 (wrist_roll): overheating",
        });
        await alarm.waitFor({ timeout: 20_000 });
        const text = (await alarm.textContent()) ?? "";
        expect(text).toMatch(
          /^SERVO ALARM: servo 5 \(wrist_roll\): overheating \(past its temperature limit\); shut down, torque off until recovered\. /,
        );
        expect(text).toMatch(/cool for 20 minutes/);
        await expect(page.locator("#servo-alerts").getAttribute("class")).resolves.toContain("has-alarm");
        expect(await page.locator("#servo-alerts").isVisible()).toBe(true);
        await expect(page.locator('[data-servo-health="wrist_roll"]').getAttribute("data-level")).resolves.toBe(
          "alarm",
        );
        await rig.shot(page, `${name}-alarm.png`);

        // Shown, never acted on: the simulator's ground truth has no motion at all.
        expect(rig.effects().filter((e) => e.event === "motion_start")).toEqual([]);
        expect(problems).toEqual([]);
        await page.close();
      },
      60_000,
    );
  },
);
