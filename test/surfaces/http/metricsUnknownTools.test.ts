import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "metrics-token-1234";
const auth = { authorization: `Bearer ${TOKEN}` };

let bridge: Bridge;
let app: FastifyInstance;

beforeEach(async () => {
  const config = loadConfig();
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config) },
    dataDir: ":memory:",
  });
  app = await buildHttpApp(bridge, { token: TOKEN });
});

afterEach(async () => {
  await app.close();
  await bridge.close();
});

const metrics = async (): Promise<string> => (await app.inject({ method: "GET", url: "/metrics", headers: auth })).body;

describe("/metrics against invented tool names", () => {
  it("counts every unknown tool name under one label, and known tools under their own", async () => {
    const invented = Array.from({ length: 63 }, (_, i) => ({ id: `u${i}`, name: `hallucinated_tool_${i}`, args: {} }));
    const res = await app.inject({
      method: "POST",
      url: "/v1/calls",
      headers: auth,
      payload: { calls: [...invented, { id: "k1", name: "get_arm_state", args: {} }] },
    });
    expect(res.statusCode).toBe(200);
    const statuses = res.json<{
      responses: { name: string; response: { output?: { status: string }; error?: { error_code: string } } }[];
    }>().responses;
    // The callers still hear which name was wrong; only the metric folds them.
    expect(statuses.filter((r) => r.response.error?.error_code === "ARMB_ERR_TOOL_UNKNOWN")).toHaveLength(63);

    const text = await metrics();
    expect(text).not.toContain("hallucinated_tool_");
    expect(text).toMatch(/armbridge_tool_duration_ms_count\{tool="\(unknown\)"\} 63\n/);
    expect(text).toMatch(/armbridge_tool_outcomes_total\{tool="\(unknown\)",status="rejected"\} 63\n/);
    expect(text).toMatch(/armbridge_tool_duration_ms_count\{tool="get_arm_state"\} 1\n/);
  });

  it("keeps the exposition the same size however many distinct names arrive", async () => {
    const batch = async (from: number): Promise<void> => {
      const calls = Array.from({ length: 50 }, (_, i) => ({
        id: `b${from + i}`,
        name: `made_up_${from + i}`,
        args: {},
      }));
      await app.inject({ method: "POST", url: "/v1/calls", headers: auth, payload: { calls } });
    };
    await batch(0);
    const lines = (await metrics()).split("\n").length;
    for (let i = 1; i < 6; i++) await batch(i * 50);
    expect((await metrics()).split("\n").length).toBe(lines);
  });
});
