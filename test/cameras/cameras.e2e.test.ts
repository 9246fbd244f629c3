import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { decodeImage } from "../../src/imaging/encodeImage.js";
import { namedColour } from "../../src/imaging/sim/namedColour.js";
import { TopDownCamera } from "../../src/imaging/sim/TopDownCamera.js";
import { DEFAULT_CONFIG_PATH, loadConfig } from "../../src/config/loadConfig.js";
import { armKinematicsOf, jointVectorOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { readEffects } from "../firmware-sim/readEffects.js";
import { CLI, interrupt, SIM, startReady, type ReadyProcess } from "../surfaces/cli/processes.js";
import { centroidOf } from "../support/centroidOf.js";

// Real processes from dist/: firmware-sim over TCP serving its camera over HTTP, and `armbridge serve`
// twice: with NO config (the default arm's `overhead` sim camera) and with a config whose camera is
// the simulator's HTTP snapshot URL (attached to every motion's result).
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping the camera end-to-end test: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "cam-e2e";
const config = loadConfig();
const kin = armKinematicsOf(config)!;
const scene = config.scene!;

interface Result {
  status: string;
  error_code?: string;
  message: string;
  action_id?: string;
  output?: { pose?: Record<string, number>; image?: Record<string, unknown> };
  images?: { camera: string; mime_type: string; stale: boolean; data?: string }[];
  context?: { table_point?: { x: number; y: number }; target?: { z: number } };
}
interface Response {
  id: string;
  response: { output?: Result; error?: Result };
  parts?: { inlineData: { mimeType: string; data: string } }[];
}

let dir: string;
let sim: ReadyProcess;
let sim2: ReadyProcess;
let plain: ReadyProcess;
let withHttp: ReadyProcess;
let n = 0;

async function call(
  serve: ReadyProcess,
  name: string,
  args: unknown,
): Promise<{ result: Result; parts: Response["parts"] }> {
  const res = await fetch(`${String(serve.ready.http)}/v1/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ calls: [{ id: `e2e-${++n}`, name, args }], deadline_ms: 20_000 }),
  });
  expect(res.status).toBe(200);
  const json = (await res.json()) as { responses: Response[] };
  const r = json.responses[0]!;
  return { result: (r.response.output ?? r.response.error)!, parts: r.parts };
}

const effectsPath = (which = ""): string => join(dir, `effects${which}.jsonl`);
const motionStarts = (which = ""): number =>
  readEffects(effectsPath(which)).filter((e) => e.event === "motion_start").length;
const tipOf = (pose: Record<string, number>): [number, number, number] =>
  positionOf(kin.chain.tip(jointVectorOf(kin, pose)!));

describe.skipIf(!built)("cameras through `armbridge serve` on firmware-sim (needs dist: npm run build)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-cam-e2e-"));
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--effects-log", effectsPath()]);
    // A second simulated arm (one host per link) that also serves its camera over HTTP.
    sim2 = await startReady(SIM, [
      "--link",
      "tcp",
      "--port",
      "0",
      "--camera-port",
      "0",
      "--effects-log",
      effectsPath("2"),
    ]);
    expect(String(sim2.ready.camera)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?action=snapshot$/);
    plain = await startReady(CLI, [
      "serve",
      "--serial",
      String(sim.ready.link),
      "--http",
      "127.0.0.1:0",
      "--token",
      TOKEN,
      "--data",
      join(dir, "data-plain"),
    ]);
    const raw = parseYaml(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as {
      arm: { name: string; urdf: string };
      cameras: Record<string, unknown>[];
    };
    raw.arm.urdf = join(DEFAULT_CONFIG_PATH, "..", raw.arm.urdf);
    const overhead = raw.cameras[0]!;
    raw.cameras = [
      { name: "lab", source: { http: String(sim2.ready.camera) }, table: overhead.table, attach_to_results: true },
    ];
    const configPath = join(dir, "http-camera.yaml");
    writeFileSync(configPath, JSON.stringify(raw));
    withHttp = await startReady(CLI, [
      "serve",
      "--config",
      configPath,
      "--serial",
      String(sim2.ready.link),
      "--http",
      "127.0.0.1:0",
      "--token",
      TOKEN,
      "--data",
      join(dir, "data-http"),
    ]);
  }, 60_000);

  afterAll(async () => {
    if (withHttp) await interrupt(withHttp);
    if (plain) await interrupt(plain);
    if (sim) await interrupt(sim);
    if (sim2) await interrupt(sim2);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("no config: get_camera_image {camera: overhead} returns a JPEG beside the result (FunctionResponse parts) and its description", async () => {
    const { result, parts } = await call(plain, "get_camera_image", { camera: "overhead" });
    expect(result.status).toBe("done");
    expect(parts?.[0]?.inlineData.mimeType).toBe("image/jpeg");
    expect(result.images?.[0]).toMatchObject({ camera: "overhead", mime_type: "image/jpeg", stale: false });
    expect(result.images?.[0]?.data).toBeUndefined();
    const picture = decodeImage(Buffer.from(parts![0]!.inlineData.data, "base64"));
    expect([picture.width, picture.height]).toEqual([640, 480]);
  });

  it("move_to_image_point at the green block, found in the picture: FK of the observed joints within 5 mm of the block; one motion in the effects log", async () => {
    const { parts } = await call(plain, "get_camera_image", { camera: "overhead" });
    const { point, pixels } = centroidOf(
      decodeImage(Buffer.from(parts![0]!.inlineData.data, "base64")),
      namedColour("green"),
      60,
    );
    expect(pixels).toBeGreaterThan(30);
    const before = motionStarts();
    const { result } = await call(plain, "move_to_image_point", { camera: "overhead", point, height_m: 0.1 });
    expect(result.status, result.message).toBe("done");
    expect(motionStarts() - before).toBe(1);
    const state = await call(plain, "get_arm_state", {});
    const tip = tipOf(state.result.output!.pose!);
    const green = scene.blocks.find((b) => b.name === "green_block")!;
    expect(Math.hypot(tip[0] - green.x, tip[1] - green.y)).toBeLessThan(0.005);
    expect(Math.abs(tip[2] - (scene.table.z + 0.1))).toBeLessThan(0.003);
  });

  it("a point mapping below the envelope's floor is rejected: nothing in the effects log", async () => {
    const before = motionStarts();
    const { result } = await call(plain, "move_to_image_point", {
      camera: "overhead",
      point: [500, 500],
      height_m: 0.02,
    });
    expect(result.status).toBe("rejected");
    expect(result.error_code).toBe("ARMB_ERR_ENVELOPE_VIOLATION");
    expect(result.context?.target?.z).toBeCloseTo(-0.38, 5);
    expect(motionStarts()).toBe(before);
  });

  it("an HTTP snapshot camera (the simulator's own, from its true joint state): a motion's result carries a frame taken after it settled, showing the gripper where it stopped", async () => {
    const { parts: shotParts } = await call(withHttp, "get_camera_image", { camera: "lab" });
    const { point } = centroidOf(
      decodeImage(Buffer.from(shotParts![0]!.inlineData.data, "base64")),
      namedColour("blue"),
      60,
    );
    const before = motionStarts("2");
    const { result, parts } = await call(withHttp, "move_to_image_point", { camera: "lab", point, height_m: 0.12 });
    expect(result.status, result.message).toBe("done");
    expect(motionStarts("2") - before).toBe(1);
    expect(result.images?.[0]).toMatchObject({ camera: "lab", mime_type: "image/jpeg", stale: false });
    const after = decodeImage(Buffer.from(parts![0]!.inlineData.data, "base64"));
    const state = await call(withHttp, "get_arm_state", {});
    const tip = tipOf(state.result.output!.pose!);
    const marker = centroidOf(after, [255, 255, 255], 90);
    const expected = new TopDownCamera(config.cameras[0]!.sim).toNormalised(tip)!;
    expect(Math.hypot(marker.point[0] - expected[0], marker.point[1] - expected[1])).toBeLessThan(4);
  });

  it("both bridges and the camera-serving simulator exit 0 on SIGINT: no camera source keeps a process alive", async () => {
    expect(await interrupt(withHttp)).toBe(0);
    expect(await interrupt(plain)).toBe(0);
    expect(await interrupt(sim2)).toBe(0);
  });
});
