import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "../surfaces/http/FakeArm.js";

// Debian's chromium, never a downloaded browser: `apt-get install -y chromium`.
const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the console browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

const TOKEN = "browser-token";
let bridge: Bridge;
let arm: FakeArm;
let server: RunningHttpServer;
let browser: Browser;

describe.skipIf(!haveChromium)("operator console in chromium (needs /usr/bin/chromium)", () => {
  beforeAll(async () => {
    const config = loadConfig();
    arm = new FakeArm(config);
    bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
    server = await startHttpServer(bridge, { port: 0, token: TOKEN });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await bridge?.close();
  });

  it("shows an unknown action live and records the operator's Confirm NOT done", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    await page.goto(`${server.url}/console#token=${TOKEN}`);
    await page.locator("#conn", { hasText: "LIVE" }).waitFor();
    await page.locator("#need", { hasText: "NOTHING TO CONFIRM" }).waitFor();
    // The token is read and then taken out of the address bar.
    expect(page.url()).not.toContain(TOKEN);

    arm.nextEndings.push("stall_after_moving");
    const [answer] = await bridge.executor.execute([{ id: "b1", name: "move_joints", args: { positions: { elbow: 2.0, wrist_1: 0.5 } } }]);
    expect(answer?.result.status).toBe("unknown");
    const actionId = (answer!.result as { action_id: string }).action_id;

    const card = page.locator(`[data-action-id="${actionId}"]`);
    await card.waitFor();
    await page.locator("#need", { hasText: "1 NEED CONFIRMATION" }).waitFor();
    await expect(card.textContent()).resolves.toContain("move_joints");
    await expect(card.textContent()).resolves.toContain("elbow");
    const notDone = card.locator('button[data-outcome="not_done"]');
    expect(await notDone.isDisabled()).toBe(true);
    await page.screenshot({ path: "/tmp/armbridge-console-unknown.png", fullPage: true });

    await page.fill("#operator", "Ada Lovelace");
    await card.locator('input[data-role="note"]').fill("arm stopped against the fixture");
    expect(await notDone.isDisabled()).toBe(false);
    await notDone.click();

    await page.locator("#banner", { hasText: "NOT DONE" }).waitFor();
    await card.waitFor({ state: "detached" });
    await page.locator("#need", { hasText: "NOTHING TO CONFIRM" }).waitFor();
    await page.locator("#actions", { hasText: "CONFIRMED NOT DONE" }).waitFor();
    await page.screenshot({ path: "/tmp/armbridge-console-confirmed.png", fullPage: true });

    const row = bridge.ledger.get(actionId);
    expect(row).toMatchObject({ state: "confirmed_not_done", operator: "Ada Lovelace", operatorNote: "arm stopped against the fixture" });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("says plainly when the page has no token", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/console`);
    await page.locator("#fatal", { hasText: "No token" }).waitFor();
    await page.close();
  });
});
