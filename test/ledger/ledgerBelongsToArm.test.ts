import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { defaultDataDir } from "../../src/bridge/defaultDataDir.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../src/errors.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { buildHttpApp, startHttpServer } from "../../src/surfaces/http/startHttpServer.js";
import type { ActionRecord } from "../../src/transport/Transport.js";
import { FakeArm } from "../surfaces/http/FakeArm.js";

/** A FakeArm that says who it is and counts the questions it was asked. */
class NamedArm extends FakeArm {
  readonly queried: string[] = [];
  constructor(config: ArmConfig, armName: string) {
    super(config, { armName });
  }
  override async queryAction(
    actionId: string,
    options: { voidIfUnknown: boolean; signal: AbortSignal },
  ): Promise<ActionRecord | undefined> {
    this.queried.push(actionId);
    return super.queryAction(actionId, options);
  }
}

const dirs: string[] = [];
const bridges: Bridge[] = [];
afterEach(async () => {
  for (const b of bridges.splice(0)) await b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "armbridge-ledger-arm-"));
  dirs.push(d);
  return d;
}

async function start(
  dataDir: string,
  arm: FakeArm,
  config: ArmConfig,
  extra: { otherArm?: "refuse" | "adopt" } = {},
): Promise<Bridge> {
  const b = await Bridge.start({
    config,
    transport: { kind: "custom", transport: arm },
    dataDir,
    ledgerCheckMs: 50,
    ...extra,
  });
  bridges.push(b);
  return b;
}

async function stop(b: Bridge): Promise<void> {
  bridges.splice(bridges.indexOf(b), 1);
  await b.close();
}

/** A row left `started` by a bridge that went down mid-motion on arm A. */
function leaveStartedRow(b: Bridge): string {
  const row = b.ledger.recordIntent({
    actionId: "act_on_a",
    callId: "call-a",
    tool: "move_joints",
    args: { positions: { elbow: 0.3 } },
    argsHash: "h",
    resources: ["joint:elbow"],
    command: { actionId: "act_on_a", targets: { elbow: 0.3 }, speed: 1 },
  });
  return row.actionId;
}

describe("a ledger belongs to one arm", () => {
  it("refuses to start on a ledger recorded against another arm, and asks that arm nothing", async () => {
    const config = loadConfig();
    const dir = tmp();
    const a = await start(dir, new NamedArm(config, "arm A"), config);
    const actionId = leaveStartedRow(a);
    await stop(a);

    const armB = new NamedArm(config, "arm B");
    const refused = await start(dir, armB, config).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isArmbridgeError(refused, "ARMB_ERR_LEDGER_OTHER_ARM")).toBe(true);
    expect(String((refused as Error).message)).toMatch(/--data|--adopt-ledger/);
    // Ground truth: arm B was never asked about A's motion, and the row is as A left it.
    expect(armB.queried).toEqual([]);
    expect(armB.sent).toEqual([]);
    const ledger = IntentLedger.open(join(dir, "ledger.sqlite"));
    try {
      expect(ledger.get(actionId)?.state).toBe("started");
      expect(ledger.armBinding()).toMatchObject({ name: config.arm.name, identity: "arm A" });
    } finally {
      ledger.close();
    }
  });

  it("refuses an arm config of another name on the same folder", async () => {
    const config = loadConfig();
    const dir = tmp();
    await stop(await start(dir, new NamedArm(config, "arm A"), config));
    const renamed: ArmConfig = { ...config, arm: { ...config.arm, name: "other_arm" } };
    await expect(start(dir, new NamedArm(renamed, "arm A"), renamed)).rejects.toMatchObject({
      code: "ARMB_ERR_LEDGER_OTHER_ARM",
    });
  });

  it("--adopt-ledger (otherArm: adopt) takes it over on the operator's word and says so", async () => {
    const config = loadConfig();
    const dir = tmp();
    const a = await start(dir, new NamedArm(config, "arm A firmware 1"), config);
    const actionId = leaveStartedRow(a);
    await stop(a);
    const armB = new NamedArm(config, "arm A firmware 2");
    const b = await start(dir, armB, config, { otherArm: "adopt" });
    expect(b.startupWarnings.join("\n")).toMatch(/adopted/);
    expect(b.ledger.armBinding()?.identity).toBe("arm A firmware 2");
    expect(armB.queried).toContain(actionId);
  });

  it("the same arm restarting on its own ledger starts without a word", async () => {
    const config = loadConfig();
    const dir = tmp();
    await stop(await start(dir, new NamedArm(config, "arm A"), config));
    const again = await start(dir, new NamedArm(config, "arm A"), config);
    expect(again.startupWarnings).toEqual([]);
  });
});

describe("a ledger that cannot disappear silently", () => {
  for (const how of ["deleted", "replaced"] as const) {
    it(`notices the ledger file ${how} under the running bridge: motion fails with ARMB_ERR_LEDGER_LOST, nothing is sent, /healthz is 503, /v1/state says why`, async () => {
      const config = loadConfig();
      const dir = tmp();
      const arm = new NamedArm(config, "arm A");
      const bridge = await start(dir, arm, config);
      const app = await buildHttpApp(bridge, { token: "lost-token" });
      try {
        expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
        const path = join(dir, "ledger.sqlite");
        if (how === "deleted") {
          for (const f of [path, `${path}-wal`]) rmSync(f, { force: true });
        } else {
          writeFileSync(join(dir, "other.sqlite"), "");
          renameSync(join(dir, "other.sqlite"), path);
        }
        const [r] = await bridge.executor.execute([
          { id: `after-${how}`, name: "move_joints", args: { positions: { elbow: 0.4 } } },
        ]);
        expect(r?.result).toMatchObject({ status: "failed", error_code: "ARMB_ERR_LEDGER_LOST" });
        expect(arm.sent).toEqual([]);

        const health = await app.inject({ method: "GET", url: "/healthz" });
        expect(health.statusCode).toBe(503);
        expect(health.json()).toMatchObject({ status: "unhealthy", code: "ARMB_ERR_LEDGER_LOST" });
        const state = await app.inject({
          method: "GET",
          url: "/v1/state",
          headers: { authorization: "Bearer lost-token" },
        });
        expect(state.json()).toMatchObject({ ledger: { path, lost: { code: "ARMB_ERR_LEDGER_LOST" } } });
      } finally {
        await app.close();
      }
    });
  }

  it("the SSE stream's state event carries ledger.lost too (for the console's banner)", async () => {
    const config = loadConfig();
    const dir = tmp();
    const bridge = await start(dir, new NamedArm(config, "arm A"), config);
    rmSync(join(dir, "ledger.sqlite"));
    bridge.ledgerLoss();
    const server = await startHttpServer(bridge, { port: 0, token: "sse-token" });
    const abort = new AbortController();
    try {
      const res = await fetch(`${server.url}/v1/events`, {
        headers: { authorization: "Bearer sse-token" },
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("\n\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const data = /^data: (.*)$/m.exec(text)?.[1] ?? "{}";
      expect(JSON.parse(data)).toMatchObject({ ledger: { lost: { code: "ARMB_ERR_LEDGER_LOST" } } });
    } finally {
      abort.abort();
      await server.close();
    }
  });

  it("notices it between calls too (the periodic check), with no motion asked for", async () => {
    const config = loadConfig();
    const dir = tmp();
    const bridge = await start(dir, new NamedArm(config, "arm A"), config);
    expect(bridge.ledger.lost).toBeUndefined();
    rmSync(join(dir, "ledger.sqlite"));
    const until = Date.now() + 5000;
    while (!bridge.ledger.lost && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(bridge.ledger.lost?.error.code).toBe("ARMB_ERR_LEDGER_LOST");
  });

  it("says loudly when a fresh ledger is created where the arm's records were", async () => {
    const config = loadConfig();
    const dir = tmp();
    await stop(await start(dir, new NamedArm(config, "arm A"), config));
    for (const f of ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"]) rmSync(join(dir, f), { force: true });
    const again = await start(dir, new NamedArm(config, "arm A"), config);
    expect(again.startupWarnings.join("\n")).toMatch(/NO INTENT LEDGER/);
    expect(existsSync(join(dir, "ledger.sqlite"))).toBe(true);
  });

  it("defaults the data folder to $XDG_STATE_HOME/armbridge/<arm name>, absolute, whatever the working directory", async () => {
    const config = loadConfig();
    const state = tmp();
    expect(defaultDataDir("sim_arm_6", { XDG_STATE_HOME: state })).toBe(join(state, "armbridge", "sim_arm_6"));
    // A relative XDG_STATE_HOME is invalid (XDG base-directory spec): ignored for ~/.local/state.
    expect(defaultDataDir("sim_arm_6", { XDG_STATE_HOME: "rel", HOME: "/home/u" })).toBe(
      "/home/u/.local/state/armbridge/sim_arm_6",
    );
    const b = await Bridge.start({
      config,
      transport: { kind: "custom", transport: new NamedArm(config, "arm A") },
      env: { XDG_STATE_HOME: state },
    });
    bridges.push(b);
    expect(b.dataDir).toBe(join(state, "armbridge", config.arm.name));
    expect(b.ledger.path).toBe(join(state, "armbridge", config.arm.name, "ledger.sqlite"));
  });
});
