import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { ActionFrames, type CallFrames } from "../../../src/cameras/ActionFrames.js";
import type { LabelledFrame } from "../../../src/cameras/CameraFrame.js";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import type { ArmConfig } from "../../../src/config/ArmConfig.js";
import { testConfig } from "../../support/testConfig.js";
import { buildHttpApp } from "../../../src/surfaces/http/startHttpServer.js";
import { CARD_FRAMES_LIST } from "../../../src/wire/CameraView.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "card-frames-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const OPERATOR_TOKEN = "card-frames-operator-token";

let bridge: Bridge | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  await bridge?.close();
  app = undefined;
  bridge = undefined;
});

async function start(
  cardFrames?: { maxCalls: number; maxBytes: number },
  config: ArmConfig = loadConfig(),
): Promise<{ app: FastifyInstance; arm: FakeArm }> {
  const arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  app = await buildHttpApp(bridge, {
    token: TOKEN,
    operatorToken: OPERATOR_TOKEN,
    ...(cardFrames ? { cardFrames } : {}),
  });
  return { app, arm };
}

async function move(a: FastifyInstance, id: string, positions: Record<string, number>): Promise<string> {
  const r = await a.inject({
    method: "POST",
    url: "/v1/calls",
    headers: auth,
    payload: { calls: [{ id, name: "move_joints", args: { positions, speed: 1 } }] },
  });
  const out = r.json<{ responses: { response: { output: { status: string; action_id: string } } }[] }>().responses[0]!
    .response.output;
  expect(out.status).toBe("done");
  return out.action_id;
}

/** The list once its `after` frame is in (taken once the motion settled, asynchronously). */
async function framesOf(a: FastifyInstance, actionId: string): Promise<ReturnType<typeof CARD_FRAMES_LIST.parse>> {
  for (let i = 0; ; i++) {
    const r = await a.inject({ method: "GET", url: `/v1/actions/${actionId}/frames`, headers: auth });
    expect(r.statusCode).toBe(200);
    const list = CARD_FRAMES_LIST.parse(r.json());
    if (list.frames.some((f) => f.which === "after")) return list;
    expect(i, "the after frame is kept within 5 s").toBeLessThan(100);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe("GET /v1/actions/:id/frames/:which", () => {
  it("keeps the overhead camera's frame from before the call and after it settled; they differ when the arm moved", async () => {
    const { app: a } = await start();
    const id = await move(a, "pan-1", { shoulder_pan: 1.2, elbow: 0.3 });
    const list = await framesOf(a, id);
    expect(list).toMatchObject({ call_id: "pan-1", action_id: id, approval_id: null });
    expect(list.frames.map((f) => `${f.which}:${f.camera}`).sort()).toEqual(["after:overhead", "before:overhead"]);
    const before = list.frames.find((f) => f.which === "before")!;
    const after = list.frames.find((f) => f.which === "after")!;
    expect(before.captured_at).toBeLessThanOrEqual(after.captured_at);

    const b = await a.inject({ method: "GET", url: before.url, headers: auth });
    const f = await a.inject({ method: "GET", url: `/v1/actions/${id}/frames/after`, headers: auth });
    for (const r of [b, f]) {
      expect(r.statusCode).toBe(200);
      expect(r.headers["content-type"]).toMatch(/^image\/(jpeg|png)$/);
      expect(r.rawPayload.length).toBeGreaterThan(1000);
    }
    expect(Buffer.compare(b.rawPayload, f.rawPayload), "the arm moved between them").not.toBe(0);
  });

  it("refuses what it does not keep with a coded 404, a bad moment with 400, and everything without the token", async () => {
    const { app: a } = await start();
    const id = await move(a, "pan-2", { shoulder_pan: -0.5 });
    await framesOf(a, id);
    const none = await a.inject({ method: "GET", url: "/v1/actions/act_nope/frames/before", headers: auth });
    expect(none.statusCode).toBe(404);
    expect(none.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_FRAME_NOT_KEPT");
    const noCamera = await a.inject({
      method: "GET",
      url: `/v1/actions/${id}/frames/before?camera=side`,
      headers: auth,
    });
    expect(noCamera.statusCode).toBe(404);
    expect(noCamera.json<{ error: { message: string } }>().error.message).toContain("kept: overhead");
    const sideways = await a.inject({ method: "GET", url: `/v1/actions/${id}/frames/sideways`, headers: auth });
    expect(sideways.statusCode).toBe(400);
    const anonymous = await a.inject({ method: "GET", url: `/v1/actions/${id}/frames/before` });
    expect(anonymous.statusCode).toBe(401);
  });

  it("keeps only the newest calls (memory bounded): an older action's frames are gone, coded", async () => {
    const { app: a } = await start({ maxCalls: 2, maxBytes: 64 * 1024 * 1024 });
    const ids: string[] = [];
    for (const [i, pan] of [0.2, 0.4, 0.6].entries()) ids.push(await move(a, `bound-${i}`, { shoulder_pan: pan }));
    await framesOf(a, ids[2]!);
    const oldest = await a.inject({ method: "GET", url: `/v1/actions/${ids[0]!}/frames/before`, headers: auth });
    expect(oldest.statusCode).toBe(404);
    expect(oldest.json<{ error: { code: string } }>().error.code).toBe("ARMB_ERR_FRAME_NOT_KEPT");
    expect(
      (await a.inject({ method: "GET", url: `/v1/actions/${ids[1]!}/frames/before`, headers: auth })).statusCode,
    ).toBe(200);
  });
});

describe("GET /v1/approvals/:id/frames", () => {
  it("keeps the frame from before an approval request (nothing moved yet); a declined call keeps nothing", async () => {
    const { app: a, arm } = await start(undefined, testConfig({ approval: { move_joints: "always" } }));
    const call = a.inject({
      method: "POST",
      url: "/v1/calls",
      headers: auth,
      payload: { calls: [{ id: "ask-1", name: "move_joints", args: { positions: { elbow: 0.8 } } }] },
    });
    let approvalId: string | undefined;
    for (let i = 0; approvalId === undefined; i++) {
      expect(i, "the request is pending within 5 s").toBeLessThan(100);
      approvalId = (await a.inject({ method: "GET", url: "/v1/approvals", headers: auth })).json<{
        approvals: { id: string }[];
      }>().approvals[0]?.id;
      if (approvalId === undefined) await new Promise((res) => setTimeout(res, 50));
    }
    let list: ReturnType<typeof CARD_FRAMES_LIST.parse> | undefined;
    for (let i = 0; !list?.frames.length; i++) {
      expect(i, "the before frame is kept within 5 s").toBeLessThan(100);
      const r = await a.inject({ method: "GET", url: `/v1/approvals/${approvalId}/frames`, headers: auth });
      if (r.statusCode === 200) list = CARD_FRAMES_LIST.parse(r.json());
      else await new Promise((res) => setTimeout(res, 50));
    }
    expect(list).toMatchObject({ call_id: "ask-1", approval_id: approvalId, action_id: null, sent_at: null });
    expect(list.frames.map((f) => `${f.which}:${f.camera}`)).toEqual(["before:overhead"]);
    const bytes = await a.inject({ method: "GET", url: `/v1/approvals/${approvalId}/frames/before`, headers: auth });
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers["content-type"]).toMatch(/^image\//);
    // An approval has no after: nothing has moved for it.
    expect(
      (await a.inject({ method: "GET", url: `/v1/approvals/${approvalId}/frames/after`, headers: auth })).statusCode,
    ).toBe(400);

    expect(
      (
        await a.inject({
          method: "POST",
          url: `/v1/approvals/${approvalId}/decline`,
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
          payload: { operator: "ana" },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await call).json<{ responses: { response: { error?: { status: string } } }[] }>().responses[0]!.response.error
        ?.status,
    ).toBe("rejected");
    expect(arm.sent).toHaveLength(0);
    expect(
      (await a.inject({ method: "GET", url: `/v1/approvals/${approvalId}/frames`, headers: auth })).statusCode,
    ).toBe(404);
  });
});

describe("ActionFrames bounds", () => {
  const frame = (bytes: number): { camera: string; frame: LabelledFrame } => ({
    camera: "overhead",
    frame: {
      camera: "overhead",
      source: "sim",
      format: "jpeg",
      bytes: Buffer.alloc(bytes, 1),
      width: 4,
      height: 4,
      capturedAtMs: 0,
      clock: "wall",
      captureTimeFrom: "rendered",
      ageMs: 0,
      notes: [],
      stale: false,
      staleAfterMs: 1000,
    },
  });

  it("drops the oldest first by count and by bytes, but keeps a call an operator still has to answer while others can go", () => {
    const wanted = new Set<string>(["c0"]);
    const frames = new ActionFrames({
      limits: { maxCalls: 3, maxBytes: 10_000 },
      isWanted: (e: CallFrames) => wanted.has(e.callId),
    });
    for (let i = 0; i < 5; i++) frames.keep(frames.begin(`c${i}`, "move_joints"), "before", [frame(1000)]);
    expect(frames.get("c0"), "the unknown one stays").toBeDefined();
    expect(frames.get("c1")).toBeUndefined();
    expect(frames.get("c2")).toBeUndefined();
    expect(frames.usage).toEqual({ calls: 3, bytes: 3000 });
    // Over the bytes: the oldest that nobody waits on goes, never the call whose frames just came in.
    frames.keep(frames.get("c4")!, "after", [frame(8000)]);
    expect(frames.usage).toEqual({ calls: 2, bytes: 10_000 });
    expect(frames.get("c0")).toBeDefined();
    expect(frames.get("c3")).toBeUndefined();
    expect(frames.get("c4")).toBeDefined();
  });
});
