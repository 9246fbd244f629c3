import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { actuatorsOf } from "../../src/config/actuators.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { isArmbridgeError } from "../../src/errors.js";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import type { CliIo } from "../../src/commandLine/CliIo.js";
import { runCli } from "../../src/surfaces/cli/runCli.js";
import { startHttpServer, type RunningHttpServer } from "../../src/surfaces/http/startHttpServer.js";
import { API_ERROR_BODY, HALT_ANSWER } from "../../src/wire/index.js";
import { testConfig } from "../support/testConfig.js";
import { FakeArm } from "../surfaces/http/FakeArm.js";

// A name that is not one of the arm's (a joint, a named pose, a camera, an
// axis) is refused with a code, naming what was wrong and listing the valid
// choices, on every surface: tools, HTTP routes, the CLI and the config.

const TOKEN = "unknown-names-token-0123456789";
const config = testConfig();
const JOINTS = config.arm.joints.map((j) => j.name);
const AXES = actuatorsOf(config).map((a) => a.name);
const POSES = Object.keys(config.arm.namedPoses);
const CAMERAS = config.cameras.map((c) => c.name);
const CALIBRATED = config.cameras.filter((c) => c.table).map((c) => c.name);

let arm: FakeArm;
let bridge: Bridge;
let server: RunningHttpServer;

beforeAll(async () => {
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  server = await startHttpServer(bridge, { token: TOKEN, port: 0 });
});
// A halt is never refused for a wrong name: it latches, and the next test starts released.
afterEach(() => {
  if (bridge.executor.halts.engaged) bridge.executor.releaseHalt({ operator: "test" });
});

afterAll(async () => {
  await server.close();
  await bridge.close();
});

async function call(name: string, args: unknown): Promise<Extract<CallResult, { status: "rejected" }>> {
  const [r] = await bridge.executor.execute([{ id: `c-${Math.random().toString(36).slice(2)}`, name, args }]);
  if (r?.result.status !== "rejected") throw new Error(`expected a rejection, got ${JSON.stringify(r?.result)}`);
  return r.result;
}

describe("tools: an unknown name is ARMB_ERR_ARGS_INVALID naming it and the valid choices", () => {
  it.each([
    [
      "move_joints, a joint the arm does not have",
      "move_joints",
      { positions: { tail: 0.1 } },
      "positions",
      "tail",
      JOINTS,
    ],
    [
      "move_joints, an unknown joint beside a known one",
      "move_joints",
      { positions: { elbow: 0.1, tail: 0.1 } },
      "positions",
      "tail",
      JOINTS,
    ],
    ["move_to_named_pose, a pose not configured", "move_to_named_pose", { pose: "dance" }, "pose", "dance", POSES],
    ["get_camera_image, a camera not configured", "get_camera_image", { camera: "rear" }, "camera", "rear", CAMERAS],
    [
      "move_to_image_point, a camera not calibrated",
      "move_to_image_point",
      { camera: "rear", point: [500, 500], height_m: 0.1 },
      "camera",
      "rear",
      CALIBRATED,
    ],
  ] as const)("%s", async (_what, tool, args, path, given, choices) => {
    expect(choices.length).toBeGreaterThan(0);
    const sentBefore = arm.sent.length;
    const r = await call(tool, args);
    expect(r.error_code).toBe("ARMB_ERR_ARGS_INVALID");
    // One issue, about the name: no second "name at least one joint" beside it.
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ path, choices: [...choices] });
    expect(r.issues[0]!.message).toContain(JSON.stringify(given));
    for (const c of choices) expect(r.message).toContain(c);
    expect(arm.sent.length).toBe(sentBefore);
  });

  it("stop naming an axis the arm does not have halts every axis all the same, then names it and the valid choices", async () => {
    const [r] = await bridge.executor.execute([{ id: "stop-tail", name: "stop", args: { joints: ["elbow", "tail"] } }]);
    expect(r!.result).toMatchObject({
      status: "done",
      error_code: "ARMB_ERR_ARGS_INVALID",
      issues: [{ path: "joints.[1]", choices: AXES }],
      output: { axes: AXES },
    });
    expect(r!.result.message).toContain('"tail"');
    expect(bridge.executor.halts.engaged).toBeDefined();
  });

  it("move_joints naming no joint at all lists the arm's joints", async () => {
    const r = await call("move_joints", { positions: {} });
    expect(r.error_code).toBe("ARMB_ERR_ARGS_INVALID");
    for (const j of JOINTS) expect(r.issues[0]!.message).toContain(j);
  });

  it("an unknown field of a tool's arguments names the fields it takes", async () => {
    const r = await call("move_to_named_pose", { pose: "home", fast: true });
    expect(r.issues).toEqual([
      expect.objectContaining({ path: "(args)", code: "unrecognized_keys", choices: ["pose", "speed"] }),
    ]);
  });

  it("the declarations sent to models are unchanged by it (no metadata leaks into the schema)", () => {
    const decl = bridge.executor.registry.declarations().find((d) => d.name === "move_to_named_pose");
    expect(JSON.stringify(decl)).not.toMatch(/among|"what"/);
  });
});

describe("cameras: an unknown camera is ARMB_ERR_CAMERA_UNKNOWN with the configured cameras", () => {
  it("Cameras.capture", async () => {
    const error: unknown = await bridge.cameras.capture("rear", AbortSignal.timeout(1000)).catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_CAMERA_UNKNOWN")).toBe(true);
    if (isArmbridgeError(error)) expect(error.details.choices).toEqual(CAMERAS);
  });
});

async function get(path: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, json: await res.json() };
}
async function post(path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe("HTTP routes: the error body's code, message and choices", () => {
  it.each([
    ["GET /v1/cameras/:name/frame", "/v1/cameras/rear/frame"],
    ["GET /v1/cameras/:name/table-point", "/v1/cameras/rear/table-point?y=500&x=500"],
  ])("%s of an unknown camera: 404 ARMB_ERR_CAMERA_UNKNOWN", async (_what, path) => {
    const r = await get(path);
    expect(r.status).toBe(404);
    const body = API_ERROR_BODY.parse(r.json);
    expect(body.error).toMatchObject({ code: "ARMB_ERR_CAMERA_UNKNOWN", choices: CAMERAS });
    expect(body.error.message).toContain('"rear"');
  });

  it("POST /v1/halt naming an axis the arm does not have: every axis halted first, then ARMB_ERR_AXIS_UNKNOWN with the choices", async () => {
    const r = await post("/v1/halt", { joints: ["elbow", "tail"] });
    expect(r.status).toBe(200);
    const body = HALT_ANSWER.parse(r.json);
    expect(body).toMatchObject({ halted: true, halt: { axes: null } });
    expect(body.problems).toEqual([expect.objectContaining({ code: "ARMB_ERR_AXIS_UNKNOWN", choices: AXES })]);
    expect(body.problems![0]!.message).toContain('"tail"');
    expect(bridge.executor.halts.engaged).toBeDefined();
  });

  it("POST /v1/calls with a tool's unknown joint: the rejection under response.error carries the choices", async () => {
    const r = await post("/v1/calls", {
      calls: [{ id: "h-1", name: "move_joints", args: { positions: { tail: 1 } } }],
    });
    expect(r.status).toBe(200);
    const error = (r.json as { responses: { response: { error: Extract<CallResult, { status: "rejected" }> } }[] })
      .responses[0]!.response.error;
    expect(error).toMatchObject({
      status: "rejected",
      error_code: "ARMB_ERR_ARGS_INVALID",
      issues: [{ path: "positions", choices: JOINTS }],
    });
  });

  it("a request value outside an enum names the valid ones", async () => {
    const r = await post("/v1/calls", {
      calls: [{ id: "k", name: "get_arm_state" }],
      client: { kind: "phone", name: "x" },
    });
    expect(r.status).toBe(400);
    const body = API_ERROR_BODY.parse(r.json);
    expect(body.error).toMatchObject({
      code: "ARMB_ERR_HTTP_BAD_REQUEST",
      choices: ["agent", "http", "console", "cli"],
    });
    expect(body.error.message).toMatch(/body\.client\.kind: "phone" is not one of: agent, http, console, cli/);
  });

  it("a HALT from a source a request may not claim halts, then names the sources it may", async () => {
    const r = await post("/v1/halt", { source: "phone" });
    expect(r.status).toBe(200);
    const body = HALT_ANSWER.parse(r.json);
    expect(body).toMatchObject({ halted: true, halt: { source: "http" } });
    expect(body.problems![0]!.message).toMatch(
      /body\.source: "phone" is not one a request may claim \(console, cli, http\)/,
    );
  });
});

function io(env: NodeJS.ProcessEnv): { io: CliIo; out: () => string; err: () => string } {
  const stdout = Object.assign(new PassThrough(), { isTTY: true });
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  return { io: { stdout, stderr, env }, out: () => out, err: () => err };
}

describe("the CLI prints what was wrong and the choices", () => {
  it.each([
    ["call move_joints with an unknown joint", ["call", "move_joints", "--args", '{"positions":{"tail":1}}'], JOINTS],
    [
      "call move_to_named_pose with an unknown pose",
      ["call", "move_to_named_pose", "--args", '{"pose":"dance"}'],
      POSES,
    ],
  ])("%s", async (_what, argv, choices) => {
    const m = io({ ARMBRIDGE_URL: server.url, ARMBRIDGE_TOKEN: TOKEN });
    await runCli(argv, m.io);
    const printed = m.out() + m.err();
    expect(printed).toMatch(/"tail"|"dance"/);
    for (const c of choices) expect(printed).toContain(c);
    expect(bridge.executor.halts.engaged).toBeUndefined();
  });

  it("halt --joint with an unknown axis halts every axis, then prints what was wrong and the choices (exit 2)", async () => {
    const m = io({ ARMBRIDGE_URL: server.url, ARMBRIDGE_TOKEN: TOKEN });
    expect(await runCli(["halt", "--joint", "tail"], m.io)).toBe(2);
    expect(m.err()).toContain('"tail"');
    for (const c of AXES) expect(m.err()).toContain(c);
    expect(bridge.executor.halts.engaged).toMatchObject({ axes: undefined });
  });
});

describe("the config: a name that is not one of the arm's joints is refused naming them", () => {
  it("a named pose with an unknown joint", () => {
    let message = "";
    try {
      parseConfig(
        {
          arm: {
            name: "tiny",
            joints: [
              { name: "a", min: -1, max: 1, home: 0, max_velocity: 1, max_acceleration: 2 },
              { name: "b", min: -1, max: 1, home: 0, max_velocity: 1, max_acceleration: 2 },
            ],
            named_poses: { up: { a: 0.1, c: 0.2 } },
          },
        },
        "test",
      );
    } catch (error) {
      expect(isArmbridgeError(error, "ARMB_ERR_CONFIG_INVALID")).toBe(true);
      message = (error as Error).message;
    }
    expect(message).toMatch(/arm\.named_poses\.up\.c: no joint named "c"; the arm's joints: a, b/);
  });
});
