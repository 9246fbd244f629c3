import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../surfaces/cli/processes.js";
import { ConsoleRig, HAVE_CHROMIUM, NO_CHROMIUM_REASON, TOKEN } from "./consoleHarness.js";

// Each payload, if it ever became markup, would set window.__pwned.
const CALL_ID = `<img src=x onerror="window.__pwned='call_id'">`;
const OPERATOR = `<script>window.__pwned='operator'</script>Eve`;
const NOTE = `"><svg onload="window.__pwned='note'"></svg><b>bold?</b>`;
const ERROR_MESSAGE = `<img src=y onerror="window.__pwned='error'"> went wrong`;

describe("console source: data never reaches the page as markup", () => {
  it("has no innerHTML, outerHTML, insertAdjacentHTML, document.write or eval in console/", () => {
    const dir = join(ROOT, "console");
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".ts"))) {
      const text = readFileSync(join(dir, f), "utf8");
      expect(text, f).not.toMatch(/\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(/);
    }
  });
});

let rig: ConsoleRig;

describe.skipIf(!HAVE_CHROMIUM)(
  `console injection: strings from the model, operators and errors render inert (skipped when ${NO_CHROMIUM_REASON})`,
  () => {
    beforeAll(async () => {
      rig = await ConsoleRig.start("injection", { simArgs: ["--stall-joint", "wrist_1"] });
    }, 60_000);
    afterAll(async () => rig?.stop());

    it("shows a hostile call id, operator name and note as text, and runs none of them", async () => {
      const result = await rig.call(CALL_ID, "move_joints", { positions: { wrist_1: 0.7 } });
      expect(result.status).toBe("unknown");
      const actionId = result.action_id!;

      const { page, problems } = await rig.open({ width: 1280, height: 800 });
      const card = page.locator(`[data-action-id="${actionId}"]`);
      await card.waitFor();
      expect(await card.locator(".meta").textContent()).toContain(`call ${CALL_ID}`);

      await page.fill("#operator", OPERATOR);
      await card.locator('textarea[data-role="note"]').fill(NOTE);
      // An error message is text from elsewhere too: the first answer meets a
      // bridge error whose message carries a payload, and shows it as text.
      await page.route("**/v1/actions/*/confirm", (route) =>
        route.fulfill({
          status: 409,
          contentType: "application/json",
          body: JSON.stringify({ error: { code: "ARMB_ERR_TEST", message: ERROR_MESSAGE } }),
        }),
      );
      await card.locator('button[data-outcome="not_moved"]').click();
      await card.locator(".err", { hasText: `ARMB_ERR_TEST: ${ERROR_MESSAGE}` }).waitFor();
      await page.unrouteAll();
      await card.locator('button[data-outcome="not_moved"]').click();
      await page.locator("#banner", { hasText: `by ${OPERATOR}` }).waitFor();
      const row = page.locator(`[id="row-${actionId}"]`);
      await row.locator(".h-note", { hasText: NOTE }).waitFor();
      expect(await row.locator(".h-who").textContent()).toContain(OPERATOR);
      await rig.shot(page, "injection.png");

      // A string, evaluated in the page: this file is type-checked without the DOM's types.
      const dom = await page.evaluate(`({
      pwned: window.__pwned ?? null,
      // The camera panel's own frames carry data-camera, a card's data-card-frame; any other <img> came from an injected string.
      imgs: document.querySelectorAll("img:not([data-camera]):not([data-card-frame])").length,
      scripts: document.querySelectorAll("script").length,
      svgOnload: document.querySelectorAll("svg[onload]").length,
      bold: [...document.querySelectorAll("b")].filter((b) => b.textContent === "bold?").length,
    })`);
      expect(dom).toEqual({ pwned: null, imgs: 0, scripts: 1, svgOnload: 0, bold: 0 });
      // Recorded as given: nothing was mangled on the way to the ledger.
      const recorded = await rig.api("GET", `/v1/actions/${actionId}`);
      expect(recorded.json).toMatchObject({ call_id: CALL_ID, operator: OPERATOR, operator_note: NOTE });
      // The one failed request is the 409 this test answered on purpose.
      expect(problems.filter((p) => !p.includes("status of 409"))).toEqual([]);
      expect(problems.filter((p) => p.includes("status of 409"))).toHaveLength(1);
    });

    it("says plainly when the page has no token, and when the token is refused", async () => {
      const page = await rig.context.newPage();
      await page.goto(`${rig.url}/console`);
      await page.locator("#fatal", { hasText: "No token" }).waitFor();
      await page.goto(`${rig.url}/console#token=${TOKEN}-wrong`);
      await page.reload();
      await page.locator("#fatal", { hasText: "refused" }).waitFor();
      await page.locator("#stream", { hasText: "TOKEN REFUSED" }).waitFor();
      await page.close();
    });
  },
);
