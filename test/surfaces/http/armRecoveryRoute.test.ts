import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";
import { RECOVERY_STEPS as STEPS, ReflexArm } from "./ReflexArm.js";

const TOKEN = "test-token-123";
const OPERATOR = "operator-token-456";
const asOperator = { authorization: `Bearer ${OPERATOR}` };

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
  app = await buildHttpApp(bridge, { token: TOKEN, operatorToken: OPERATOR, bodyLimit: 4096 });
  return app;
}

const post = async (a: FastifyInstance, body: object, headers: Record<string, string> = asOperator) => {
  const res = await a.inject({ method: "POST", url: "/v1/arm/recover", headers, payload: body });
  return { status: res.statusCode, json: res.json<Record<string, unknown>>() };
};

describe("POST /v1/arm/recover", () => {
  it("without run: true only lists the steps; with it, runs them and returns each outcome", async () => {
    const arm = new ReflexArm(loadConfig());
    const a = await start(arm);
    const plan = await post(a, { operator: "Ada" });
    expect(plan).toMatchObject({ status: 200, json: { operator: "Ada", ran: false, steps: STEPS } });
    expect(arm.runs).toBe(0);
    const ran = await post(a, { operator: "Ada", note: "the box is out of the way", run: true });
    expect(ran.status).toBe(200);
    expect(ran.json.ran).toBe(true);
    expect(ran.json.steps).toEqual(STEPS.map((s) => ({ ...s, outcome: "done" })));
    expect(arm.runs).toBe(1);
  });

  it("refuses the API token: only an operator runs a recovery", async () => {
    const arm = new ReflexArm(loadConfig());
    const a = await start(arm);
    const r = await post(a, { operator: "Ada", run: true }, { authorization: `Bearer ${TOKEN}` });
    expect(r.json).toMatchObject({ error: { code: "ARMB_ERR_HTTP_OPERATOR_ONLY" } });
    expect(arm.runs).toBe(0);
  });

  it("a transport without an arm recovery answers ARMB_ERR_ARM_RECOVERY_UNSUPPORTED", async () => {
    const a = await start(new FakeArm(loadConfig()));
    const r = await post(a, { operator: "Ada" });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error: { code: "ARMB_ERR_ARM_RECOVERY_UNSUPPORTED" } });
  });
});
