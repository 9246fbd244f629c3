import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { PRESENCE_VIEW } from "../../../src/surfaces/http/wire/PresenceView.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "presence-routes-token";
const auth = { authorization: `Bearer ${TOKEN}` };

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
    app = await buildHttpApp(bridge, { token: TOKEN });
    const got = await app.inject({ method: "GET", url: "/v1/presence", headers: auth });
    expect(PRESENCE_VIEW.parse(got.json())).toEqual({ required: false, timeout_ms: null, operator: null, missing: null, consoles: [] });
    const beat = await app.inject({ method: "POST", url: "/v1/presence", headers: auth, payload: { session: "console-1234", operator: "ana" } });
    expect(beat.statusCode).toBe(404);
    expect(beat.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_PRESENCE_NOT_REQUIRED");
    expect(Object.keys((await app.inject({ method: "GET", url: "/v1/state", headers: auth })).json<Record<string, unknown>>())).not.toContain("presence");
    const r = await app.inject({ method: "POST", url: "/v1/calls", headers: auth, payload: { calls: [{ id: "free", name: "move_joints", args: { positions: { elbow: 0.4 } } }] } });
    expect(r.json<{ responses: { response: { output: { status: string } } }[] }>().responses[0]!.response.output.status).toBe("done");
    expect(arm.sent).toHaveLength(1);
  });
});
