import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "../surfaces/http/FakeArm.js";

// The console's alarm banners, in a real browser: a ledger deleted under the
// running bridge (every motion refused until a restart), and a token short
// enough to guess (GET /v1/security's warnings).
const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(`skipping the console alerts browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** Shorter than the 16 characters securityReport asks for. */
const SHORT_TOKEN = "short-tok";
const SHOTS = join("test-output", "browser", "console-alerts");

describe.skipIf(!haveChromium)("operator console alerts in chromium (needs /usr/bin/chromium)", () => {
  let dir: string;
  let bridge: Bridge;
  let server: RunningHttpServer;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-console-alerts-"));
    const config = loadConfig();
    bridge = await Bridge.start({
      config,
      transport: { kind: "custom", transport: new FakeArm(config) },
      dataDir: dir,
    });
    server = await startHttpServer(bridge, { port: 0, token: SHORT_TOKEN });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await bridge?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows no ledger banner while the ledger is there, the short-token warning, then LEDGER LOST once the file is deleted", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${server.url}/console#token=${SHORT_TOKEN}`);
    await page.locator("#stream", { hasText: "LIVE" }).waitFor();
    await page.locator('#security-warnings [data-kind="short_token"]', { hasText: "SECURITY WARNING" }).waitFor();
    expect(await page.locator("#ledger-lost").isVisible()).toBe(false);

    rmSync(join(dir, "ledger.sqlite"));
    expect(bridge.ledgerLoss()?.error.code).toBe("ARMB_ERR_LEDGER_LOST");
    // Any state event carries it; a refused call makes one at once.
    const [r] = await bridge.executor.execute([
      { id: "after-loss", name: "move_joints", args: { positions: { elbow: 0.5 } } },
    ]);
    expect(r?.result.status).toBe("failed");
    await page.locator("#ledger-lost", { hasText: "THE LEDGER IS LOST" }).waitFor({ timeout: 10_000 });
    await expect(page.locator("#ledger-lost").textContent()).resolves.toContain(
      "Motion calls fail until the bridge is restarted",
    );
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "ledger-lost.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
