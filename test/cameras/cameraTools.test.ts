import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startSimulator, type RunningSimulator } from "../../firmware-sim/startSimulator.js";
import { Bridge } from "../../src/bridge/Bridge.js";
import { decodeImage } from "../../src/imaging/encodeImage.js";
import { namedColour } from "../../src/imaging/sim/namedColour.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { DEFAULT_CONFIG_PATH, parseConfig } from "../../src/config/loadConfig.js";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import { armKinematicsOf, jointVectorOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { centroidOf } from "../support/centroidOf.js";

/** The default arm config, with extra cameras: a file camera whose picture is old, and one whose file is missing. */
function configWith(dir: string): ArmConfig {
  const raw = parseYaml(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as { arm: { urdf: string }; cameras: unknown[] };
  raw.arm.urdf = join(DEFAULT_CONFIG_PATH, "..", raw.arm.urdf);
  const table = (raw.cameras[0] as { table: unknown }).table;
  // Both attach a frame to every motion's result: the old one says it predates the motion, the missing one is left out.
  raw.cameras.push({
    name: "old_file",
    source: { file: join(dir, "old.jpg") },
    stale_after_ms: 1000,
    table,
    attach_to_results: true,
  });
  raw.cameras.push({ name: "gone", source: { file: join(dir, "missing.jpg") }, table, attach_to_results: true });
  return parseConfig(raw, "test config");
}

interface Effect {
  readonly event: string;
}

let dir: string;
let sim: RunningSimulator;
let bridge: Bridge;
let config: ArmConfig;
let n = 0;
const effects = (): Effect[] =>
  readFileSync(join(dir, "effects.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Effect);
const motionStarts = (): number => effects().filter((e) => e.event === "motion_start").length;

async function call(name: string, args: unknown, id = `cam-${++n}`): Promise<CallResult> {
  const [r] = await bridge.executor.execute([{ id, name, args }], { deadlineMs: 20_000 });
  return r!.result;
}

describe("camera tools through a Bridge on firmware-sim (the default arm's overhead camera)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armb-cameras-"));
    config = configWith(dir);
    sim = await startSimulator({
      link: "tcp",
      port: 0,
      effectsLog: join(dir, "effects.jsonl"),
      logger: pino({ level: "silent" }),
      armConfig: config,
    });
    bridge = await Bridge.start({ config, transport: { kind: "serial", link: sim.link }, dataDir: join(dir, "data") });
    // A valid JPEG, last written an hour ago.
    const frame = await bridge.cameras.capture("overhead", AbortSignal.timeout(5000));
    writeFileSync(join(dir, "old.jpg"), frame.bytes);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, "old.jpg"), hourAgo, hourAgo);
  });

  afterAll(async () => {
    await bridge?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("get_camera_image returns the picture: a whole 640×480 JPEG, its capture time, not stale", async () => {
    const r = await call("get_camera_image", { camera: "overhead" });
    expect(r.status).toBe("done");
    const image = r.images?.[0];
    expect(image?.mime_type).toBe("image/jpeg");
    expect(image?.stale).toBe(false);
    const decoded = decodeImage(Buffer.from(image?.data ?? "", "base64"));
    expect([decoded.width, decoded.height]).toEqual([640, 480]);
    expect(motionStarts()).toBe(0);
  });

  it("move_to_image_point at the red block (found in the camera's own picture) moves there: FK of the observed joints within 5 mm; one motion", async () => {
    const shot = await call("get_camera_image", { camera: "overhead" });
    const picture = decodeImage(Buffer.from(shot.images?.[0]?.data ?? "", "base64"));
    const { point } = centroidOf(picture, namedColour("red"), 60);
    const before = motionStarts();
    const r = await call("move_to_image_point", { camera: "overhead", point, height_m: 0.1 });
    expect(r.status, r.message).toBe("done");
    expect(motionStarts() - before).toBe(1);
    const red = config.scene!.blocks.find((b) => b.name === "red_block")!;
    const kin = armKinematicsOf(config)!;
    const state = await call("get_arm_state", {});
    if (state.status !== "done") throw new Error(state.message);
    const pose = state.output?.pose as Record<string, number>;
    const tip = positionOf(kin.chain.tip(jointVectorOf(kin, pose)!));
    // The top face's parallax (~4 mm here, docs/cameras.md) plus the joints' tolerance.
    expect(
      Math.hypot(tip[0] - red.x, tip[1] - red.y),
      `tip ${tip.join(", ")} vs block ${red.x}, ${red.y}; point ${point.join(", ")}; ${JSON.stringify(r.context)}`,
    ).toBeLessThan(0.005);
    expect(Math.abs(tip[2] - (config.scene!.table.z + 0.1))).toBeLessThan(0.003);
    expect(r.context?.table_point).toMatchObject({ frame: "base_link" });
    // attach_to_results: the old file's frame comes with the result, saying it predates the motion; the missing camera is left out.
    expect(r.images?.map((i) => i.camera)).toEqual(["old_file"]);
    expect(r.images?.[0]?.stale).toBe(true);
    expect(r.images?.[0]?.notes?.join(" ")).toMatch(/before the motion settled/);
  });

  it("a point that maps below the envelope's floor is rejected with the mapped point in context; nothing reaches the arm", async () => {
    const before = motionStarts();
    const r = await call("move_to_image_point", { camera: "overhead", point: [500, 500], height_m: 0.02 });
    expect(r.status, r.message).toBe("rejected");
    if (r.status === "rejected") expect(r.error_code).toBe("ARMB_ERR_ENVELOPE_VIOLATION");
    expect(r.context?.target).toMatchObject({ z: -0.38 });
    expect(motionStarts()).toBe(before);
  });

  it("a stale camera: get_camera_image labels the picture STALE; move_to_image_point fails with ARMB_ERR_CAMERA_STALE and nothing moves", async () => {
    const shot = await call("get_camera_image", { camera: "old_file" });
    expect(shot.status).toBe("done");
    expect(shot.images?.[0]?.stale).toBe(true);
    expect(shot.message).toMatch(/STALE/);
    const before = motionStarts();
    const rows = bridge.ledger.list({ limit: 1000 }).length;
    const r = await call("move_to_image_point", { camera: "old_file", point: [500, 500], height_m: 0.1 }, "stale-1");
    expect(r.status).toBe("failed");
    if (r.status === "failed") expect(r.error_code).toBe("ARMB_ERR_CAMERA_STALE");
    expect(motionStarts()).toBe(before);
    // Refused before the intent: nothing in the ledger, so the same call id may be sent again once the camera is back.
    expect(bridge.ledger.findByCallId("stale-1")).toBeUndefined();
    expect(bridge.ledger.list({ limit: 1000 })).toHaveLength(rows);
  });

  it("a missing camera: both tools fail with ARMB_ERR_CAMERA_UNAVAILABLE naming the camera; nothing moves", async () => {
    const shot = await call("get_camera_image", { camera: "gone" });
    expect(shot.status).toBe("failed");
    if (shot.status === "failed") expect(shot.error_code).toBe("ARMB_ERR_CAMERA_UNAVAILABLE");
    const before = motionStarts();
    const r = await call("move_to_image_point", { camera: "gone", point: [500, 500], height_m: 0.1 });
    expect(r.status).toBe("failed");
    if (r.status === "failed") {
      expect(r.error_code).toBe("ARMB_ERR_CAMERA_UNAVAILABLE");
      expect(r.reason).toMatch(/gone/);
    }
    expect(motionStarts()).toBe(before);
  });

  it("declarations: point is an array of exactly two numbers in 0-1000; get_camera_image is a read", () => {
    const decls = bridge.registry.declarations();
    const move = decls.find((d) => d.name === "move_to_image_point")!;
    const point = (move.parametersJsonSchema as { properties: Record<string, Record<string, unknown>> }).properties
      .point!;
    expect(point).toMatchObject({
      type: "array",
      minItems: 2,
      maxItems: 2,
      items: { type: "number", minimum: 0, maximum: 1000 },
    });
    expect(point).not.toHaveProperty("prefixItems");
    expect(bridge.registry.get("get_camera_image")?.blocking).toBe(false);
    expect((move.parametersJsonSchema as { required: string[] }).required.sort()).toEqual([
      "camera",
      "height_m",
      "point",
    ]);
  });

  it("an unknown camera name is rejected by the arguments' schema, listing the cameras", async () => {
    const r = await call("get_camera_image", { camera: "nope" });
    expect(r.status).toBe("rejected");
    if (r.status === "rejected") expect(r.issues[0]?.message).toMatch(/overhead/);
  });
});
