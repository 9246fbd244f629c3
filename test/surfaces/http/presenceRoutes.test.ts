import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { PRESENCE_VIEW } from "../../../src/wire/PresenceView.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "presence-routes-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const OPERATOR = "presence-routes-operator-token";
const asOperator = { authorization: `Bearer ${OPERATOR}` };

let bridge: Bridge | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  await bridge?.close();
});

describe("presence routes on a bridge without operator_presence (the default)", () => {
  it("says it is not required, refuses a heartbeat with a coded 404, keeps /v1/state as it was, and moves without any console", async () => {
    const config = loadConfig();
    const arm = new FakeArm(config);
    bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
    app = await buildHttpApp(bridge, { token: TOKEN, operatorToken: OPERATOR });
    const got = await app.inject({ method: "GET", url: "/v1/presence", headers: auth });
    expect(PRESENCE_VIEW.parse(got.json())).toEqual({
      required: false,
      timeout_ms: null,
      operator: null,
      missing: null,
      consoles: [],
    });
    const beat = await app.inject({
      method: "POST",
      url: "/v1/presence",
      headers: asOperator,
      payload: { session: "console-1234", operator: "ana" },
    });
    expect(beat.statusCode).toBe(404);
    expect(beat.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_PRESENCE_NOT_REQUIRED");
    expect(
      Object.keys(
        (await app.inject({ method: "GET", url: "/v1/state", headers: auth })).json<Record<string, unknown>>(),
      ),
    ).not.toContain("presence");
    const r = await app.inject({
      method: "POST",
      url: "/v1/calls",
      headers: auth,
      payload: { calls: [{ id: "free", name: "move_joints", args: { positions: { elbow: 0.4 } } }] },
    });
    expect(
      r.json<{ responses: { response: { output: { status: string } } }[] }>().responses[0]!.response.output.status,
    ).toBe("done");
    expect(arm.sent).toHaveLength(1);
  });
});

describe("presence routes with operator_presence required", () => {
  async function start(): Promise<{ app: FastifyInstance; arm: FakeArm }> {
    const base = loadConfig();
    const config = { ...base, operatorPresence: { timeoutMs: 60_000 } };
    const arm = new FakeArm(config);
    bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
    app = await buildHttpApp(bridge, { token: TOKEN, operatorToken: OPERATOR });
    return { app, arm };
  }

  const beat = (a: FastifyInstance, body: Record<string, unknown>, headers = asOperator) =>
    a.inject({ method: "POST", url: "/v1/presence", headers, payload: body });
  const presence = async (a: FastifyInstance) =>
    PRESENCE_VIEW.parse((await a.inject({ method: "GET", url: "/v1/presence", headers: auth })).json());

  it("a heartbeat with the API token is refused (403, coded), counts no console and admits no motion", async () => {
    const { app: a, arm } = await start();
    const forged = await beat(a, { session: "agent-forged-0001", operator: "ana" }, auth);
    expect(forged.statusCode).toBe(403);
    expect(forged.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_HTTP_OPERATOR_ONLY");
    expect((await presence(a)).consoles).toEqual([]);
    const r = await a.inject({
      method: "POST",
      url: "/v1/calls",
      headers: auth,
      payload: { calls: [{ id: "after-forgery", name: "move_joints", args: { positions: { elbow: 0.4 } } }] },
    });
    expect(
      r.json<{ responses: { response: { output: { error_code: string } } }[] }>().responses[0]!.response.output
        .error_code,
    ).toBe("ARMB_ERR_OPERATOR_ABSENT");
    expect(arm.sent).toEqual([]);
    // The operator's own token is refused nowhere: the console uses it for every route.
    expect((await a.inject({ method: "GET", url: "/v1/state", headers: asOperator })).statusCode).toBe(200);
    expect((await beat(a, { session: "console-of-ana-1", operator: "ana" })).statusCode).toBe(200);
  });

  it("approval decisions with the API token are refused (403, coded) before the request is looked up", async () => {
    const { app: a } = await start();
    for (const verb of ["approve", "decline"]) {
      const r = await a.inject({
        method: "POST",
        url: `/v1/approvals/apr_any/${verb}`,
        headers: auth,
        payload: { operator: "ana" },
      });
      expect(r.statusCode).toBe(403);
      expect(r.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_HTTP_OPERATOR_ONLY");
      expect(
        (
          await a.inject({
            method: "POST",
            url: `/v1/approvals/apr_any/${verb}`,
            headers: asOperator,
            payload: { operator: "ana" },
          })
        ).json<{ error: { code: string } }>().error.code,
      ).toBe("ARMB_ERR_APPROVAL_NOT_FOUND");
    }
  });

  it("the consoles counted are bounded: past the cap a new console is refused (429, coded), those counted keep beating, and the state stays small", async () => {
    const { app: a } = await start();
    const answers = [];
    for (let i = 0; i < 40; i++)
      answers.push(
        (await beat(a, { session: `console-${String(i).padStart(4, "0")}`, operator: `op${i}` })).statusCode,
      );
    expect(answers.filter((s) => s === 200)).toHaveLength(16);
    const refused = await beat(a, { session: "console-one-more", operator: "late" });
    expect(refused.statusCode).toBe(429);
    expect(refused.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_PRESENCE_CONSOLES_FULL");
    expect((await beat(a, { session: "console-0003", operator: "op3" })).statusCode).toBe(200);
    expect((await presence(a)).consoles).toHaveLength(16);
    const state = await a.inject({ method: "GET", url: "/v1/state", headers: auth });
    expect(state.json<{ presence: { consoles: unknown[] } }>().presence.consoles).toHaveLength(16);
    // A console that leaves makes room.
    expect((await beat(a, { session: "console-0000", leaving: true })).statusCode).toBe(200);
    expect((await beat(a, { session: "console-one-more", operator: "late" })).statusCode).toBe(200);
  });

  it("a console's id is never listed, so another console cannot end or rename it with what it reads", async () => {
    const { app: a } = await start();
    const mine = await beat(a, { session: "console-of-ana-secret", operator: "ana" });
    const tag = PRESENCE_VIEW.parse(mine.json()).yours;
    expect(tag).toBeDefined();
    const listed = await presence(a);
    expect(listed.consoles.map((c) => c.session)).toEqual([tag]);
    const state = (await a.inject({ method: "GET", url: "/v1/state", headers: auth })).body;
    expect(state).not.toContain("console-of-ana-secret");
    // Another console (same operator token) uses what it read to end and to rename ana's.
    for (const session of listed.consoles.map((c) => c.session)) {
      await beat(a, { session, leaving: true });
      await beat(a, { session, operator: "mallory" });
    }
    const after = await presence(a);
    expect(after.consoles.find((c) => c.session === tag)?.operator).toBe("ana");
  });
});
