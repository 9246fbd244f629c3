import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CLI, interrupt, ROOT, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";

// Debian's chromium, never a downloaded browser: `apt-get install -y chromium`.
export const CHROMIUM = "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const NO_CHROMIUM_REASON = `${CHROMIUM} is missing (apt-get install -y chromium)`;
if (!HAVE_CHROMIUM) console.warn(`skipping the console browser tests: ${NO_CHROMIUM_REASON}`);

/** Screenshots land here, one folder per test file: look at them (ARMBRIDGE_BROWSER_SHOTS puts them elsewhere, e.g. under /tmp). */
export const OUTPUT_DIR = process.env.ARMBRIDGE_BROWSER_SHOTS ?? join(ROOT, "test-output", "browser");

const LAUNCH_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // WebGL for the console's 3D view on a machine without a GPU: SwiftShader,
  // asked for by name (chromium's silent fallback to it is deprecated).
  "--enable-unsafe-swiftshader",
];

export const TOKEN = "browser-test-token-0123456789";
/** The operator's token: the console is opened with it, as with the link serve prints. */
export const OPERATOR_TOKEN = "browser-test-operator-token-0123456789";

export interface EffectLine {
  readonly event: string;
  readonly action_id: string | null;
  readonly joints: readonly string[];
  readonly from?: readonly number[];
  readonly to?: readonly number[];
  readonly outcome?: string;
}

/** The model-facing result of one call. */
export interface CallOutput {
  readonly status: string;
  readonly action_id?: string;
  readonly message: string;
  readonly settled_by?: string;
}

/** A real firmware-sim and a real `armbridge serve` on it (dist/), each on port 0, and a fresh chromium profile. */
export class ConsoleRig {
  readonly dir: string;
  readonly effectsPath: string;
  sim!: ReadyProcess;
  serve!: ReadyProcess;
  context!: BrowserContext;
  url!: string;

  private constructor(readonly name: string) {
    this.dir = mkdtempSync(join(tmpdir(), `armbridge-browser-${name}-`));
    this.effectsPath = join(this.dir, "effects.jsonl");
  }

  /** `serveConfig` writes the bridge's config into the rig's folder and names it (the simulator keeps the default arm). */
  static async start(
    name: string,
    options: { readonly simArgs?: readonly string[]; readonly serveConfig?: (dir: string) => string } = {},
  ): Promise<ConsoleRig> {
    const rig = new ConsoleRig(name);
    mkdirSync(join(OUTPUT_DIR, name), { recursive: true });
    const configArgs = options.serveConfig ? ["--config", options.serveConfig(rig.dir)] : [];
    rig.sim = await startReady(SIM, [
      "--link",
      "tcp",
      "--port",
      "0",
      "--effects-log",
      rig.effectsPath,
      ...(options.simArgs ?? []),
    ]);
    rig.serve = await startReady(
      CLI,
      [
        "serve",
        "--serial",
        String(rig.sim.ready.link),
        "--http",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--operator-token",
        OPERATOR_TOKEN,
        "--data",
        join(rig.dir, "data"),
        ...configArgs,
      ],
      {
        XDG_STATE_HOME: join(rig.dir, "xdg"),
      },
    );
    rig.url = String(rig.serve.ready.http);
    rig.context = await chromium.launchPersistentContext(join(rig.dir, "profile"), {
      executablePath: CHROMIUM,
      args: LAUNCH_FLAGS,
      headless: true,
    });
    return rig;
  }

  /** A page on the console, failing the test on any page error, console error or CSP violation. */
  async open(viewport: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
    const page = await this.context.newPage();
    await page.setViewportSize(viewport);
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    await page.goto(`${this.url}/console#token=${OPERATOR_TOKEN}`);
    await page.locator("#stream", { hasText: "EVENTS: LIVE" }).waitFor();
    await page.locator("#link.ok").waitFor();
    return { page, problems };
  }

  async shot(page: Page, file: string): Promise<void> {
    await page.screenshot({ path: join(OUTPUT_DIR, this.name, file), fullPage: true });
  }

  async api<T = Record<string, unknown>>(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: T }> {
    const init: RequestInit = {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    const r = await fetch(`${this.url}${path}`, init);
    return { status: r.status, json: (await r.json()) as T };
  }

  /** One call through POST /v1/calls; the model-facing result (output, or error for a rejection). */
  async call(id: string, name: string, args: unknown): Promise<CallOutput> {
    const r = await this.api<{ responses: { response: { output?: CallOutput; error?: CallOutput } }[] }>(
      "POST",
      "/v1/calls",
      { calls: [{ id, name, args }] },
    );
    const response = r.json.responses[0]!.response;
    return (response.output ?? response.error)!;
  }

  /** Ground truth: what the simulator says physically happened. */
  effects(): EffectLine[] {
    if (!existsSync(this.effectsPath)) return [];
    return readFileSync(this.effectsPath, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as EffectLine);
  }

  async stop(): Promise<void> {
    await this.context?.close().catch(() => undefined);
    if (this.serve) await interrupt(this.serve);
    if (this.sim) await interrupt(this.sim);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
