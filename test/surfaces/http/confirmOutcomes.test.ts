import { ACTION_STATES, CONFIRM_OUTCOMES } from "../../../src/wire/vocabulary.js";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { CONFIRM_OUTCOME_RULES } from "../../../src/ledger/confirmOutcomes.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "outcomes-token";
const auth = { authorization: `Bearer ${TOKEN}` };

let bridge: Bridge;
let arm: FakeArm;
let app: FastifyInstance;

beforeEach(async () => {
  const config = loadConfig();
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  app = await buildHttpApp(bridge, { token: TOKEN });
});

afterEach(async () => {
  await app.close();
  await bridge.close();
});

async function post(url: string, body: unknown) {
  const res = await app.inject({ method: "POST", url, headers: auth, payload: body as object });
  return { status: res.statusCode, json: res.json() };
}
async function get(url: string) {
  const res = await app.inject({ method: "GET", url, headers: auth });
  return { status: res.statusCode, json: res.json() };
}

/** wrist_2 from 0 toward 0.9; the fake arm stalls it half-way (0.45) → unknown. */
async function stalledUnknown(id: string): Promise<string> {
  arm.nextEndings.push("stall_after_moving");
  const r = await post("/v1/calls", {
    calls: [{ id, name: "move_joints", args: { positions: { wrist_2: 0.9 } } }],
    deadline_ms: 5000,
  });
  const out = r.json.responses[0].response.output;
  expect(out.status).toBe("unknown");
  return out.action_id as string;
}

async function wrist2Runs(id: string): Promise<string> {
  const r = await post("/v1/calls", {
    calls: [{ id, name: "move_joints", args: { positions: { wrist_2: 0.1 } } }],
    deadline_ms: 5000,
  });
  return r.json.responses[0].response.output.status as string;
}

describe("truthful outcomes: each choice, its ledger state, its release and what the model is told", () => {
  it("an unknown action offers the three outcomes, each saying what it releases and the model's exact words", async () => {
    const id = await stalledUnknown("u-opts");
    const view = (await get(`/v1/actions/${id}`)).json;
    expect(view.confirm_options.map((o: { outcome: string }) => o.outcome)).toEqual([
      "reached",
      "partial",
      "not_moved",
    ]);
    for (const o of view.confirm_options) {
      expect(o.releases).toEqual(["joint:wrist_2"]);
      expect(o.label).toBe(CONFIRM_OUTCOME_RULES[o.outcome as "reached"].label);
      expect(o.model_is_told).toContain(id);
      expect(o.what_follows).toMatch(/^Unlocks its joints/);
    }
    const partial = view.confirm_options.find((o: { outcome: string }) => o.outcome === "partial");
    // The pose the arm reports now, against the target: what a confirmation would record.
    expect(partial.model_is_told).toContain("wrist_2=0.450 (target 0.900)");
    expect(partial.model_is_told).toMatch(/re-run starts from where the arm is now/);
    // The operator reads their own description, not the model's instructions.
    expect(view.description).not.toMatch(/Ask the user/);
    expect(view.description).toMatch(/stay locked until someone at the arm says what happened/);
    // The state view carries the same options for the console's pending card.
    const state = (await get("/v1/state")).json;
    expect(state.pending_unknowns[0].confirm_options).toEqual(view.confirm_options);
    // A settled row offers nothing.
    await post(`/v1/actions/${id}/confirm`, { outcome: "reached", operator: "ana" });
    expect((await get(`/v1/actions/${id}`)).json.confirm_options).toBeUndefined();
  });

  it.each([
    ["reached", "confirmed_done", "done"],
    ["partial", "confirmed_partial", "stopped"],
    ["not_moved", "confirmed_not_done", "failed"],
    ["done", "confirmed_done", "done"],
    ["not_done", "confirmed_not_done", "failed"],
  ] as const)(
    "outcome %s → %s, result %s, wrist_2 released, operator, note and observed pose kept",
    async (outcome, state, status) => {
      const id = await stalledUnknown(`u-${outcome}`);
      expect(await wrist2Runs(`blocked-${outcome}`)).toBe("blocked");
      const before = Date.now();
      const r = await post(`/v1/actions/${id}/confirm`, { outcome, operator: " ana ", note: "looked at it" });
      expect(r.status).toBe(200);
      const canonical = outcome === "done" ? "reached" : outcome === "not_done" ? "not_moved" : outcome;
      expect(r.json).toMatchObject({
        state,
        settled_by: "operator",
        operator: "ana",
        operator_note: "looked at it",
        operator_outcome: canonical,
        observed_pose: expect.objectContaining({ wrist_2: 0.45 }),
        result: { status },
      });
      expect(r.json.observed_at).toBeGreaterThanOrEqual(before - 1000);
      expect(r.json.settled_at).toBe(r.json.confirmed_at);
      expect(r.json.message).toBe(r.json.result.message);
      expect(r.json.message).toContain("An operator (ana)");
      expect(r.json.description).toMatch(/^ana confirmed/);
      // The table's status is the status the model gets.
      expect(CONFIRM_OUTCOME_RULES[canonical].status).toBe(status);
      expect(CONFIRM_OUTCOME_RULES[canonical].state).toBe(state);
      expect((await get("/v1/state")).json.quarantined).toEqual({});
      expect(await wrist2Runs(`after-${outcome}`)).toBe("done");
    },
  );

  it("partial tells the model plainly that the arm stopped part-way, where it is and that a re-run starts from there", async () => {
    const id = await stalledUnknown("u-partial-words");
    const r = await post(`/v1/actions/${id}/confirm`, { outcome: "partial", operator: "ana" });
    const m = r.json.result.message as string;
    expect(m).toMatch(/stopped part-way/);
    expect(m).toContain("wrist_2=0.450 (target 0.900)");
    expect(m).toMatch(/joints are released/);
    expect(m).toMatch(/re-run starts from where the arm is now/);
    expect(r.json.result.pose).toMatchObject({ wrist_2: 0.45 });
    // get_action_status reads the same row.
    const s = await post("/v1/calls", { calls: [{ id: "gas", name: "get_action_status", args: { action_id: id } }] });
    const status = s.json.responses[0].response.output;
    expect(status.output).toMatchObject({
      state: "confirmed_partial",
      operator_outcome: "partial",
      observed_pose: { wrist_2: 0.45 },
    });
    expect(status.message).toMatch(/stopped part-way.*wrist_2=0\.450 \(target 0\.900\)/);
  });

  it("refuses an outcome that is not one of the five words with 400, changing nothing", async () => {
    const id = await stalledUnknown("u-bad");
    const r = await post(`/v1/actions/${id}/confirm`, { outcome: "half", operator: "ana" });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe("ARMB_ERR_HTTP_BAD_REQUEST");
    expect((await get(`/v1/actions/${id}`)).json.state).toBe("unknown");
  });

  it("history: the state filter works for every state, rows say who settled them and when", async () => {
    await post("/v1/calls", { calls: [{ id: "h-done", name: "move_joints", args: { positions: { elbow: 1.0 } } }] });
    const ids: Record<string, string> = {};
    for (const outcome of CONFIRM_OUTCOMES) {
      ids[outcome] = await stalledUnknown(`h-${outcome}`);
      await post(`/v1/actions/${ids[outcome]}/confirm`, { outcome, operator: `op-${outcome}` });
    }
    await stalledUnknown("h-unknown");
    for (const state of ACTION_STATES) {
      const r = await get(`/v1/actions?state=${state}`);
      expect(r.status, state).toBe(200);
      for (const a of r.json.actions) expect(a.state).toBe(state);
    }
    const counts: Record<string, number> = {};
    for (const s of ACTION_STATES)
      counts[s] = ((await get(`/v1/actions?state=${s}`)).json as { actions: unknown[] }).actions.length;
    expect(counts).toMatchObject({
      done: 1,
      unknown: 1,
      confirmed_done: 1,
      confirmed_partial: 1,
      confirmed_not_done: 1,
      started: 0,
      failed: 0,
    });
    const partial = (await get("/v1/actions?state=confirmed_partial")).json.actions[0];
    expect(partial).toMatchObject({ action_id: ids.partial, settled_by: "operator", operator: "op-partial" });
    expect(partial.settled_at).toBeGreaterThanOrEqual(partial.verdict_at);
    const done = (await get("/v1/actions?state=done")).json.actions[0];
    expect(done).toMatchObject({ settled_by: "completion", operator: null });
    expect(done.settled_at).toBe(done.verdict_at);
  });
});
