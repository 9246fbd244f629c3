import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type * as z from "zod/mini";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import {
  ACTION_VIEW,
  ACTIONS_PAGE,
  API_ERROR_BODY,
  APPROVALS_LIST,
  ARM_DESCRIPTION_VIEW,
  ARM_STATE_VIEW,
  CALLS_RESPONSE,
  CAMERAS_LIST,
  DECIDED_APPROVAL_VIEW,
  EXECUTOR_EVENT_VIEW,
  PLACED_VOLUMES_VIEW,
  FRAME_HEADERS,
  FRAME_HEADERS_VIEW,
  HALT_ANSWER,
  HALT_RELEASE_ANSWER,
  SECURITY_REPORT,
  TABLE_POINT_VIEW,
} from "../../../src/wire/index.js";
import { testConfig } from "../../support/testConfig.js";
import { FakeArm } from "./FakeArm.js";
import { readEventStream } from "../../support/readEventStream.js";

// The HTTP API's answers against its wire contract (src/wire/),
// the schemas whose types the console is built against. Every answer the
// console reads is parsed strictly here: a field the server adds, drops,
// renames or retypes without changing the contract fails this test, and a
// change to the contract changes the console's types with it.

const TOKEN = "wire-contract-token-0123456789";
const OPERATOR_TOKEN = "wire-contract-operator-token-0123456789";
/** The console's credential: it reads what the console reads and decides approvals. */
const auth = { authorization: `Bearer ${OPERATOR_TOKEN}`, "content-type": "application/json" };

let bridge: Bridge;
let arm: FakeArm;
let server: RunningHttpServer;

async function request(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(server.url + path, {
    method,
    headers: auth,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** Parses `value` with `schema`, failing with every issue's path when it does not fit. */
function fits<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `${what} does not fit the wire contract: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}\n${JSON.stringify(value)}`,
    );
  return parsed.data;
}

function readEvents(): ReturnType<typeof readEventStream> {
  return readEventStream(`${server.url}/v1/events`, auth);
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const hit = await probe();
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeEach(async () => {
  const config = testConfig({ approval: { set_gripper: "always" } });
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  server = await startHttpServer(bridge, {
    token: TOKEN,
    operatorToken: OPERATOR_TOKEN,
    port: 0,
    events: { stateIntervalMs: 50 },
  });
});

afterEach(async () => {
  await server.close();
  await bridge.close();
});

describe("the HTTP API's answers fit the wire contract the console is built against", () => {
  it("every answer the console reads, and every event it hears, parses strictly", async () => {
    const stream = readEvents();
    try {
      fits(ARM_DESCRIPTION_VIEW, (await request("GET", "/v1/arm")).json, "GET /v1/arm");
      fits(PLACED_VOLUMES_VIEW, (await request("GET", "/v1/arm/volumes?elbow=0.5")).json, "GET /v1/arm/volumes");
      fits(SECURITY_REPORT, (await request("GET", "/v1/security")).json, "GET /v1/security");
      const before = fits(ARM_STATE_VIEW, (await request("GET", "/v1/state")).json, "GET /v1/state before any motion");
      // A transport with no servo data (this fake, serial firmware, ROS 2) leaves servo_health out: absent, not zeros.
      // Its bus shape is parsed against this contract on the simulator (test/bus/servoHealthOverHttp.test.ts).
      expect("servo_health" in before).toBe(false);

      const elbow = bridge.config.arm.joints.find((j) => j.name === "elbow") ?? bridge.config.arm.joints[0]!;
      arm.nextEndings.push("stall_after_moving");
      const first = fits(
        CALLS_RESPONSE,
        (
          await request("POST", "/v1/calls", {
            calls: [{ id: "w-1", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.2 } } }],
          })
        ).json,
        "POST /v1/calls",
      );
      const unknown = first.responses[0]!.response;
      expect("output" in unknown && unknown.output.status).toBe("unknown");
      const unknownId = "output" in unknown ? unknown.output.action_id! : "";
      fits(
        CALLS_RESPONSE,
        (await request("POST", "/v1/calls", { calls: [{ id: "w-2", name: "nope", args: {} }] })).json,
        "POST /v1/calls, a rejected call",
      );

      const one = fits(
        ACTION_VIEW,
        (await request("GET", `/v1/actions/${unknownId}`)).json,
        "GET /v1/actions/:id of an unknown action",
      );
      expect(one.confirm_options?.map((o) => o.outcome)).toEqual(["reached", "partial", "not_moved"]);
      const state = fits(
        ARM_STATE_VIEW,
        (await request("GET", "/v1/state")).json,
        "GET /v1/state with an unknown action",
      );
      expect(state.pending_unknowns.map((a) => a.action_id)).toEqual([unknownId]);
      fits(
        ACTION_VIEW,
        (
          await request("POST", `/v1/actions/${unknownId}/confirm`, {
            outcome: "partial",
            operator: "ana",
            note: "stopped by the box",
          })
        ).json,
        "POST /v1/actions/:id/confirm",
      );

      // A call that waits for an operator: the approval list, the answer, then the motion.
      const gated = request("POST", "/v1/calls", {
        calls: [{ id: "w-3", name: "set_gripper", args: { position: 0.3 } }],
      });
      const list = await until(async () => {
        const l = fits(APPROVALS_LIST, (await request("GET", "/v1/approvals")).json, "GET /v1/approvals");
        return l.approvals.length > 0 ? l : undefined;
      });
      fits(
        DECIDED_APPROVAL_VIEW,
        (await request("POST", `/v1/approvals/${list.approvals[0]!.id}/approve`, { operator: "ana" })).json,
        "POST /v1/approvals/:id/approve",
      );
      fits(CALLS_RESPONSE, (await gated).json, "POST /v1/calls after approval");

      const page = fits(ACTIONS_PAGE, (await request("GET", "/v1/actions?limit=1")).json, "GET /v1/actions");
      expect(page.next_cursor).not.toBeNull();
      const missing = await request("GET", "/v1/actions/act_missing");
      expect(missing.status).toBe(404);
      fits(API_ERROR_BODY, missing.json, "a 404");

      const seen = await until(() => {
        const types = new Set(
          stream.events.filter((e) => e.event === "executor").map((e) => (e.data as { type: string }).type),
        );
        return ["started", "settled", "action_resolved", "approval_requested", "approval_resolved"].every((t) =>
          types.has(t),
        )
          ? types
          : undefined;
      });
      expect(seen.size).toBeGreaterThanOrEqual(5);
      for (const e of stream.events) {
        if (e.event === "executor")
          fits(EXECUTOR_EVENT_VIEW, e.data, `the SSE executor event ${(e.data as { type: string }).type}`);
        if (e.event === "state") fits(ARM_STATE_VIEW, e.data, "the SSE state event");
      }
      expect(stream.events.some((e) => e.event === "state")).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it("the link's loss, its next try, a new incarnation and the executor's link_returned parse strictly", async () => {
    const stream = readEvents();
    try {
      await until(() => stream.events.find((e) => e.event === "state"));
      // Lost for a while with a motion in flight (the arm loses power: a new incarnation), then another device answers.
      const elbow = bridge.config.arm.joints.find((j) => j.name === "elbow") ?? bridge.config.arm.joints[0]!;
      arm.nextEndings.push("reach");
      const call = request("POST", "/v1/calls", {
        calls: [{ id: "w-link", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.1 } } }],
      });
      await until(() =>
        stream.events.find((e) => e.event === "executor" && (e.data as { type: string }).type === "settled"),
      );
      await arm.powerLoss(250);
      const lost = fits(ARM_STATE_VIEW, (await request("GET", "/v1/state")).json, "GET /v1/state while reconnecting");
      expect(lost.link.state).toBe("reconnecting");
      expect(lost.link.last_loss?.reason).toBe("the arm lost power (fake)");
      const returned = await until(() =>
        stream.events.find((e) => e.event === "executor" && (e.data as { type: string }).type === "link_returned"),
      );
      const event = fits(EXECUTOR_EVENT_VIEW, returned.data, "the SSE executor event link_returned");
      expect(event.type === "link_returned" && event.loss.incarnation_changed).toBe(true);
      fits(CALLS_RESPONSE, (await call).json, "POST /v1/calls");
      const back = fits(ARM_STATE_VIEW, (await request("GET", "/v1/state")).json, "GET /v1/state after the return");
      expect(back.link).toMatchObject({ state: "connected", last_loss: { incarnation_changed: true } });
      expect(back.link.last_loss?.returned_at).toBeGreaterThanOrEqual(back.link.last_loss?.lost_at ?? Infinity);

      await arm.replaceWithOtherDevice();
      const refused = await until(async () => {
        const s = fits(
          ARM_STATE_VIEW,
          (await request("GET", "/v1/state")).json,
          "GET /v1/state with another device on the link",
        );
        return s.link.error_code === undefined ? undefined : s;
      });
      expect(refused.link).toMatchObject({ state: "reconnecting", error_code: "ARMB_ERR_DEVICE_REPLACED" });
      for (const e of stream.events) {
        if (e.event === "executor")
          fits(EXECUTOR_EVENT_VIEW, e.data, `the SSE executor event ${(e.data as { type: string }).type}`);
        if (e.event === "state") fits(ARM_STATE_VIEW, e.data, "the SSE state event");
      }
      expect(
        stream.events.some(
          (e) =>
            e.event === "state" &&
            (e.data as { link: { next_attempt_at?: number } }).link.next_attempt_at !== undefined,
        ),
      ).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it("the halt and camera routes' answers, a frame's headers, and the halt events parse strictly", async () => {
    const stream = readEvents();
    try {
      // HALT with a motion under way: the answer, the latched state, the refusal, the release.
      const elbow = bridge.config.arm.joints.find((j) => j.name === "elbow") ?? bridge.config.arm.joints[0]!;
      arm.nextEndings.push("stall_after_moving");
      const moving = request("POST", "/v1/calls", {
        calls: [{ id: "w-halted", name: "move_joints", args: { positions: { [elbow.name]: elbow.home + 0.2 } } }],
      });
      await until(() =>
        stream.events.find((e) => e.event === "executor" && (e.data as { type: string }).type === "started"),
      );
      const halt = fits(
        HALT_ANSWER,
        (await request("POST", "/v1/halt", { operator: "ana", note: "wire contract", source: "console" })).json,
        "POST /v1/halt",
      );
      expect(halt).toMatchObject({ halted: true, halt: { source: "console", operator: "ana", confirmed: true } });
      fits(CALLS_RESPONSE, (await moving).json, "POST /v1/calls, a motion the halt cut short");
      const latched = fits(ARM_STATE_VIEW, (await request("GET", "/v1/state")).json, "GET /v1/state while halted");
      expect(latched).toMatchObject({ halted: true, halt: { halt_id: halt.halt.halt_id } });
      fits(
        CALLS_RESPONSE,
        (
          await request("POST", "/v1/calls", {
            calls: [{ id: "w-refused", name: "move_joints", args: { positions: { [elbow.name]: elbow.home } } }],
          })
        ).json,
        "POST /v1/calls, refused while halted",
      );
      const released = fits(
        HALT_RELEASE_ANSWER,
        (await request("POST", "/v1/halt/release", { operator: "ana", note: "clear" })).json,
        "POST /v1/halt/release",
      );
      expect(released.released.map((h) => h.halt_id)).toEqual([halt.halt.halt_id]);
      const notHalted = await request("POST", "/v1/halt/release", { operator: "ana" });
      expect(notHalted.status).toBe(409);
      fits(API_ERROR_BODY, notHalted.json, "POST /v1/halt/release with nothing latched");
      await until(() =>
        stream.events.find((e) => e.event === "executor" && (e.data as { type: string }).type === "halt_released"),
      );

      // The cameras: the list, a frame's headers, a table point, and the errors.
      const cameras = fits(CAMERAS_LIST, (await request("GET", "/v1/cameras")).json, "GET /v1/cameras");
      const calibrated = cameras.cameras.find((c) => c.calibrated);
      expect(calibrated).toBeDefined();
      const frame = await fetch(`${server.url}/v1/cameras/${calibrated!.name}/frame`, { headers: auth });
      expect(frame.status).toBe(200);
      const headers = Object.fromEntries(frame.headers.entries());
      const own = Object.fromEntries(
        Object.entries(headers).filter(([k]) => k.startsWith("x-") || k === "content-type" || k === "cache-control"),
      );
      const parsed = fits(FRAME_HEADERS_VIEW, own, `GET /v1/cameras/${calibrated!.name}/frame headers`);
      expect(Buffer.from(await frame.arrayBuffer()).length).toBeGreaterThan(0);
      expect(Math.abs(Number(parsed[FRAME_HEADERS.capturedAt]) - Date.now())).toBeLessThan(60_000);
      const point = fits(
        TABLE_POINT_VIEW,
        (await request("GET", `/v1/cameras/${calibrated!.name}/table-point?y=500&x=500`)).json,
        "GET /v1/cameras/:name/table-point",
      );
      expect(point).toMatchObject({ camera: calibrated!.name, point: [500, 500] });
      for (const path of [
        `/v1/cameras/nope/frame`,
        `/v1/cameras/nope/table-point?y=1&x=1`,
        `/v1/cameras/${calibrated!.name}/table-point?y=2000&x=1`,
      ]) {
        const bad = await request("GET", path);
        expect(bad.status).toBeGreaterThanOrEqual(400);
        fits(API_ERROR_BODY, bad.json, `GET ${path}`);
      }

      for (const e of stream.events) {
        if (e.event === "executor")
          fits(EXECUTOR_EVENT_VIEW, e.data, `the SSE executor event ${(e.data as { type: string }).type}`);
        if (e.event === "state") fits(ARM_STATE_VIEW, e.data, "the SSE state event");
      }
      const types = new Set(
        stream.events.filter((e) => e.event === "executor").map((e) => (e.data as { type: string }).type),
      );
      expect([...types]).toEqual(expect.arrayContaining(["halted", "halt_released"]));
      expect(stream.events.some((e) => e.event === "state" && (e.data as { halted: boolean }).halted)).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it("refuses an answer with a field the contract does not name (the check is strict)", () => {
    const view = { name: "arm", axes: [], named_poses: {}, stale_after_ms: 1000, envelope: null };
    expect(ARM_DESCRIPTION_VIEW.safeParse(view).success).toBe(true);
    expect(ARM_DESCRIPTION_VIEW.safeParse({ ...view, renamed_field: 1 }).success).toBe(false);
    const { stale_after_ms: _dropped, ...withoutOne } = view;
    expect(ARM_DESCRIPTION_VIEW.safeParse(withoutOne).success).toBe(false);
    const frame = {
      "content-type": "image/jpeg",
      "cache-control": "no-store",
      "x-captured-at": "1",
      "x-frame-age-ms": "0",
      "x-frame-stale": "false",
    };
    expect(FRAME_HEADERS_VIEW.safeParse(frame).success).toBe(true);
    expect(FRAME_HEADERS_VIEW.safeParse({ ...frame, "x-frame-source": "sim" }).success).toBe(false);
    expect(FRAME_HEADERS_VIEW.safeParse({ ...frame, "x-frame-age-ms": "12.5" }).success).toBe(false);
  });
});
