import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "test-token-123";
const auth = { authorization: `Bearer ${TOKEN}` };

let bridge: Bridge;
let arm: FakeArm;
let app: FastifyInstance;

beforeEach(async () => {
  const config = loadConfig();
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  app = await buildHttpApp(bridge, { token: TOKEN, bodyLimit: 4096 });
});

afterEach(async () => {
  await app.close();
  await bridge.close();
});

async function post(url: string, body: unknown, headers: Record<string, string> = auth) {
  const res = await app.inject({ method: "POST", url, headers, payload: body as object });
  return { status: res.statusCode, json: res.json() };
}
async function get(url: string, headers: Record<string, string> = auth) {
  const res = await app.inject({ method: "GET", url, headers });
  return {
    status: res.statusCode,
    json: res.headers["content-type"]?.toString().startsWith("application/json") ? res.json() : undefined,
    res,
  };
}
function move(id: string, positions: Record<string, number>) {
  return { id, name: "move_joints", args: { positions } };
}

describe("auth", () => {
  it("serves /healthz without a token", async () => {
    const r = await get("/healthz", {});
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: "ok" });
  });

  it.each([
    ["no header", {}],
    ["a wrong token", { authorization: "Bearer nope" }],
    ["a token prefix", { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ["another scheme", { authorization: `Basic ${TOKEN}` }],
  ])("refuses %s with 401 ARMB_ERR_HTTP_UNAUTHORIZED", async (_what, headers) => {
    for (const url of ["/v1/state", "/v1/tools", "/metrics", "/v1/events", "/v1/no-such-route"]) {
      const r = await get(url, headers);
      expect(r.status, url).toBe(401);
      expect(r.json.error.code).toBe("ARMB_ERR_HTTP_UNAUTHORIZED");
    }
    const p = await post("/v1/calls", { calls: [move("a", { elbow: 1 })] }, headers);
    expect(p.status).toBe(401);
    expect(arm.sent).toHaveLength(0);
  });

  it("answers an over-long path parameter in the same error shape (ARMB_ERR_HTTP_BAD_REQUEST)", async () => {
    const r = await get(`/v1/actions/${"a".repeat(400)}`);
    expect(r.status).toBe(414);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
  });

  it("accepts the scheme in any case", async () => {
    expect((await get("/v1/state", { authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });
});

describe("POST /v1/calls", () => {
  it("answers each call with its id and name, in order, result under output", async () => {
    const r = await post("/v1/calls", {
      calls: [move("c1", { elbow: 1.2 }), { id: "c2", name: "get_arm_state", args: {} }, move("c3", { wrist_1: 0.3 })],
      deadline_ms: 5000,
    });
    expect(r.status).toBe(200);
    expect(r.json.responses.map((x: { id: string; name: string }) => [x.id, x.name])).toEqual([
      ["c1", "move_joints"],
      ["c2", "get_arm_state"],
      ["c3", "move_joints"],
    ]);
    const out = r.json.responses[0].response.output;
    expect(out).toMatchObject({ status: "done", timed_out: false, settled_by: "completion" });
    expect(typeof out.action_id).toBe("string");
    expect(typeof out.message).toBe("string");
    expect(arm.sent.map((c) => c.targets)).toEqual(expect.arrayContaining([{ elbow: 1.2 }, { wrist_1: 0.3 }]));
  });

  it("puts an unknown tool under response.error with status rejected, and sends nothing", async () => {
    const r = await post("/v1/calls", { calls: [{ id: "x", name: "fly_away", args: {} }] });
    expect(r.status).toBe(200);
    expect(r.json.responses[0].response.error).toMatchObject({
      status: "rejected",
      error_code: "ARMB_ERR_TOOL_UNKNOWN",
    });
    expect(arm.sent).toHaveLength(0);
  });

  it("rejects an unknown joint under response.error", async () => {
    const r = await post("/v1/calls", { calls: [move("x", { no_such_joint: 0 })] });
    expect(r.json.responses[0].response.error).toMatchObject({
      status: "rejected",
      error_code: "ARMB_ERR_ARGS_INVALID",
    });
  });

  it.each([
    ["no calls field", {}],
    ["an empty batch", { calls: [] }],
    ["a call without a name", { calls: [{ id: "a", args: {} }] }],
    ["a misspelt deadline", { calls: [move("a", { elbow: 1 })], deadlineMs: 100 }],
    ["a negative deadline", { calls: [move("a", { elbow: 1 })], deadline_ms: -1 }],
    [
      "a batch over 64 calls",
      { calls: Array.from({ length: 65 }, (_, i) => ({ id: `g${i}`, name: "get_arm_state" })) },
    ],
  ])("refuses %s with 400 ARMB_ERR_HTTP_BAD_REQUEST", async (_what, body) => {
    const r = await post("/v1/calls", body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
    expect(typeof r.json.error.message).toBe("string");
    expect(arm.sent).toHaveLength(0);
  });

  it("refuses unparsable JSON with 400 ARMB_ERR_HTTP_BAD_REQUEST", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/calls",
      headers: { ...auth, "content-type": "application/json" },
      payload: "{nope",
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
  });

  it("refuses a body over the limit with 413 ARMB_ERR_HTTP_BODY_TOO_LARGE", async () => {
    const r = await post("/v1/calls", {
      calls: [{ id: "big", name: "get_arm_state", args: { pad: "x".repeat(5000) } }],
    });
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_BODY_TOO_LARGE");
  });
});

describe("actions and the confirm flow", () => {
  it("blocks a joint held by an unknown action until an operator confirms, then runs the call", async () => {
    arm.nextEndings.push("stall_after_moving");
    const first = await post("/v1/calls", { calls: [move("m1", { elbow: 2.0 })] });
    const unknown = first.json.responses[0].response.output;
    expect(unknown.status).toBe("unknown");
    const id: string = unknown.action_id;

    const state = await get("/v1/state");
    expect(state.json.pending_unknowns.map((a: { action_id: string }) => a.action_id)).toEqual([id]);
    expect(state.json.quarantined["joint:elbow"]).toEqual([id]);

    const blocked = await post("/v1/calls", { calls: [move("m2", { elbow: 0.5 })] });
    expect(blocked.json.responses[0].response.output).toMatchObject({ status: "blocked", blocked_by: [id] });
    expect(arm.sent).toHaveLength(1);

    const listed = await get("/v1/actions?state=unknown");
    expect(listed.json.actions.map((a: { action_id: string }) => a.action_id)).toEqual([id]);

    const noName = await post(`/v1/actions/${id}/confirm`, { outcome: "not_done", operator: "   " });
    expect(noName.status).toBe(400);
    expect(noName.json.error.code).toBe("ARMB_ERR_OPERATOR_REQUIRED");

    const confirmed = await post(`/v1/actions/${id}/confirm`, {
      outcome: "not_done",
      operator: "Ada",
      note: "it stopped short",
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json).toMatchObject({
      action_id: id,
      state: "confirmed_not_done",
      operator: "Ada",
      operator_note: "it stopped short",
      settled_by: "operator",
    });

    const again = await post(`/v1/actions/${id}/confirm`, { outcome: "done", operator: "Ada" });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("ARMB_ERR_ACTION_NOT_UNKNOWN");

    expect((await get("/v1/state")).json.pending_unknowns).toEqual([]);
    const retry = await post("/v1/calls", { calls: [move("m3", { elbow: 0.5 })] });
    expect(retry.json.responses[0].response.output.status).toBe("done");
    expect(arm.sent).toHaveLength(2);

    const one = await get(`/v1/actions/${id}`);
    expect(one.status).toBe(200);
    expect(one.json.result).toMatchObject({ status: "failed", settled_by: "operator" });
  });

  it("answers 404 ARMB_ERR_ACTION_NOT_FOUND for an action that does not exist", async () => {
    const r = await get("/v1/actions/act_nope");
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("ARMB_ERR_ACTION_NOT_FOUND");
    const c = await post("/v1/actions/act_nope/confirm", { outcome: "done", operator: "Ada" });
    expect(c.status).toBe(404);
    expect(c.json.error.code).toBe("ARMB_ERR_ACTION_NOT_FOUND");
  });

  it.each([
    ["an unknown outcome", { outcome: "maybe", operator: "Ada" }],
    ["no operator", { outcome: "done" }],
    ["an extra field", { outcome: "done", operator: "Ada", force: true }],
  ])("refuses a confirmation with %s as 400 ARMB_ERR_HTTP_BAD_REQUEST", async (_what, body) => {
    const r = await post("/v1/actions/act_x/confirm", body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
  });

  it.each([
    "/v1/actions?state=lost",
    "/v1/actions?limit=0",
    "/v1/actions?limit=abc",
    "/v1/actions?before=-5",
    "/v1/actions?colour=red",
  ])("refuses the query %s with 400 ARMB_ERR_HTTP_BAD_REQUEST", async (url) => {
    const r = await get(url);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
  });

  it("reads blank query fields as absent", async () => {
    await post("/v1/calls", { calls: [move("q1", { elbow: 0.1 })] });
    const r = await get("/v1/actions?state=&limit=&before=");
    expect(r.status).toBe(200);
    expect(r.json.actions).toHaveLength(1);
  });

  it("pages the action list newest first with next_before", async () => {
    await post("/v1/calls", { calls: [move("p1", { elbow: 0.1 })] });
    await post("/v1/calls", { calls: [move("p2", { elbow: 0.2 })] });
    const page = await get("/v1/actions?limit=1");
    expect(page.json.actions).toHaveLength(1);
    expect(page.json.actions[0].call_id).toBe("p2");
    expect(typeof page.json.next_before).toBe("number");
  });
});

describe("other routes", () => {
  it("lists the declarations models get, without local policy", async () => {
    const r = await get("/v1/tools");
    const mv = r.json.functionDeclarations.find((d: { name: string }) => d.name === "move_joints");
    expect(mv).toMatchObject({ behavior: "BLOCKING" });
    expect(mv.parametersJsonSchema).toBeTypeOf("object");
    expect(Object.keys(mv).sort()).toEqual(["behavior", "description", "name", "parametersJsonSchema"]);
  });

  it("reports pose, moving axes and freshness in /v1/state", async () => {
    const r = await get("/v1/state");
    expect(r.json).toMatchObject({
      pose: { elbow: 1.0, gripper: 1.0 },
      moving: [],
      stale: false,
      faults: [],
      quarantined: {},
      pending_unknowns: [],
    });
    expect(r.json.age_ms).toBeGreaterThanOrEqual(0);
  });

  it("exposes per-tool duration histograms in Prometheus text", async () => {
    await post("/v1/calls", { calls: [move("h1", { elbow: 0.7 })] });
    const r = await get("/metrics");
    expect(r.status).toBe(200);
    expect(r.res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(r.res.body).toContain("# TYPE armbridge_tool_duration_ms histogram");
    expect(r.res.body).toMatch(/armbridge_tool_duration_ms_bucket\{tool="move_joints",le="\+Inf"\} 1/);
    expect(r.res.body).toMatch(/armbridge_tool_outcomes_total\{tool="move_joints",status="done"\} 1/);
  });

  it("answers an unknown route with 404 ARMB_ERR_HTTP_NOT_FOUND", async () => {
    const r = await get("/v1/nothing-here?x=1");
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_NOT_FOUND");
  });

  it("serves the console page without a token, with a CSP that allows no other origin", async () => {
    const r = await get("/console", {});
    expect(r.status).toBe(200);
    expect(r.res.headers["content-type"]).toMatch(/^text\/html/);
    expect(r.res.headers["content-security-policy"]).toMatch(/default-src 'none'; script-src 'sha256-/);
    // Self-contained: no script, stylesheet or icon from anywhere but the page itself
    // (the SVG and XHTML namespaces are names for createElementNS, never fetched). The
    // markup is judged without the inline script's text: bundled libraries carry URLs as
    // strings (a validator's URL check), which the CSP's default-src 'none' never lets load.
    const markup = r.res.body.replace(/<script>[\s\S]*?<\/script>/g, "").replace(/<style>[\s\S]*?<\/style>/g, "");
    expect(markup).not.toMatch(
      /<script[^>]+src=|<link[^>]+href="(?!data:)|https?:\/\/(?!www\.w3\.org\/(2000\/svg|1999\/xhtml)")/,
    );
    expect(r.res.body).not.toMatch(/<script[^>]+src=/);
  });

  it("serves a CSP whose hashes are those of the page's one inline script and one inline style", async () => {
    const r = await get("/console", {});
    const html = r.res.body;
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    const hash = (t: string) => `'sha256-${createHash("sha256").update(t, "utf8").digest("base64")}'`;
    const csp = String(r.res.headers["content-security-policy"]);
    expect(csp).toContain(`script-src ${hash(scripts[0]!)};`);
    expect(csp).toContain(`style-src ${hash(styles[0]!)};`);
    // Nothing else may run: no inline handlers in the markup, no javascript: URLs anywhere.
    // (The script itself is code, where `let onAnimationFrame=` is a variable, not a handler.)
    const markup = html.replace(/<script>[\s\S]*?<\/script>/g, "").replace(/<style>[\s\S]*?<\/style>/g, "");
    expect(markup).not.toMatch(/\son[a-z]+=|javascript:/i);
    expect(scripts[0]).not.toMatch(/javascript:/i);
  });
});
