import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import type { ServoCare } from "../../../src/transport/Transport.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "test-token-123";
const auth = { authorization: `Bearer ${TOKEN}` };

/** A FakeArm that can recover servos, recording what it was asked. */
class RecoveringArm extends FakeArm {
  readonly asked: (readonly string[] | undefined)[] = [];
  readonly servos: ServoCare = {
    health: () => [],
    recover: (options) => {
      this.asked.push(options.axes);
      return Promise.resolve(
        (options.axes ?? ["elbow"]).map((axis) => ({ axis, outcome: "recovered" as const, detail: "rebooted" })),
      );
    },
  };
}

let bridge: Bridge | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  await bridge?.close();
  app = undefined;
  bridge = undefined;
});

async function start(arm: FakeArm): Promise<FastifyInstance> {
  bridge = await Bridge.start({
    config: loadConfig(),
    transport: { kind: "custom", transport: arm },
    dataDir: ":memory:",
  });
  app = await buildHttpApp(bridge, { token: TOKEN, bodyLimit: 4096 });
  return app;
}

const post = async (a: FastifyInstance, body: unknown, headers: Record<string, string> = auth) => {
  const res = await a.inject({ method: "POST", url: "/v1/servos/recover", headers, payload: body as object });
  return { status: res.statusCode, json: res.json() };
};

describe("POST /v1/servos/recover", () => {
  it("passes the named joints to the transport and returns each outcome", async () => {
    const arm = new RecoveringArm(loadConfig());
    const a = await start(arm);
    const r = await post(a, { joints: ["elbow"], operator: "Ada", note: "the cup was in the way" });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ operator: "Ada", results: [{ axis: "elbow", outcome: "recovered", detail: "rebooted" }] });
    expect(arm.asked).toEqual([["elbow"]]);
  });

  it.each([
    ["no operator", { joints: ["elbow"] }],
    ["a blank operator", { operator: "   " }],
    ["an operator of format characters only (U+200B)", { operator: "\u200b" }],
    ["an operator of format characters only (U+2060, U+200D)", { operator: " \u2060\u200d " }],
    ["an unknown joint", { joints: ["tail"], operator: "Ada" }, "ARMB_ERR_AXIS_UNKNOWN"],
    ["an extra key", { operator: "Ada", force: true }],
  ])("refuses %s with 400 and asks nothing", async (_what, body, code = "ARMB_ERR_HTTP_BAD_REQUEST") => {
    const arm = new RecoveringArm(loadConfig());
    const a = await start(arm);
    const r = await post(a, body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(code);
    expect(arm.asked).toEqual([]);
  });

  it("records the operator's name in NFC, without surrounding invisible characters", async () => {
    const a = await start(new RecoveringArm(loadConfig()));
    const r = await post(a, { joints: ["elbow"], operator: "\u200bRene\u0301 " });
    expect(r.status).toBe(200);
    expect(r.json.operator).toBe("Ren\u00e9");
  });

  it("answers 409 ARMB_ERR_RECOVERY_UNSUPPORTED on a transport without servos to recover", async () => {
    const a = await start(new FakeArm(loadConfig()));
    const r = await post(a, { operator: "Ada" });
    expect(r.status).toBe(409);
    expect(r.json.error.code).toBe("ARMB_ERR_RECOVERY_UNSUPPORTED");
  });

  it("needs the token", async () => {
    const a = await start(new RecoveringArm(loadConfig()));
    expect((await post(a, { operator: "Ada" }, {})).status).toBe(401);
  });
});
