import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/imaging/encodeImage.js";
import { imagePointToTable } from "../../src/cameras/imagePointToTable.js";
import { inspectImage } from "../../src/cameras/inspectImage.js";
import { namedColour } from "../../src/imaging/sim/namedColour.js";
import { renderScene } from "../../src/imaging/sim/renderScene.js";
import { TopDownCamera } from "../../src/imaging/sim/TopDownCamera.js";
import { SimCameraSource } from "../../src/cameras/sources/SimCameraSource.js";
import type { SceneConfig } from "../../src/config/sections/simulator.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { armKinematicsOf, jointVectorOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { centroidOf } from "../support/centroidOf.js";

const config = loadConfig();
const overhead = config.cameras.find((c) => c.name === "overhead")!;
const scene = config.scene!;
const camera = new TopDownCamera(overhead.sim);

const dist2 = (a: readonly number[], b: readonly number[]): number =>
  Math.hypot((a[0] ?? 0) - (b[0] ?? 0), (a[1] ?? 0) - (b[1] ?? 0));

describe("the simulated overhead camera (config/sim-arm.yaml)", () => {
  it("ships a calibration that agrees with its camera model (residual ≪ 1 mm, each point within 0.001 of 1000)", () => {
    const table = overhead.table!;
    expect(table.residualMm.max).toBeLessThan(0.01);
    for (const p of table.points) {
      const projected = camera.toNormalised([p.table[0], p.table[1], table.z])!;
      expect(Math.abs(projected[0] - p.image[0])).toBeLessThan(0.001);
      expect(Math.abs(projected[1] - p.image[1])).toBeLessThan(0.001);
    }
  });

  it("flat markers on the table: each one's pixel centroid maps within 2 mm of its true x, y", () => {
    const flat: SceneConfig = { table: scene.table, blocks: scene.blocks.map((b) => ({ ...b, height: 0 })) };
    const image = renderScene(camera, flat, undefined);
    for (const block of flat.blocks) {
      const { point, pixels } = centroidOf(image, namedColour(block.color));
      expect(pixels).toBeGreaterThan(50);
      const mapped = imagePointToTable(overhead.table!, point);
      expect(mapped.ok).toBe(true);
      if (mapped.ok) expect(dist2(mapped.table, [block.x, block.y])).toBeLessThan(0.002);
      if (mapped.ok) expect(mapped.extrapolated).toBe(false);
    }
  });

  it("the shipped cubes: the top face maps within 2 mm of where parallax puts it, and within 5 mm of the block's true x, y", () => {
    const image = renderScene(camera, scene, undefined);
    const [cx, cy, cz] = overhead.sim.position;
    for (const block of scene.blocks) {
      const { point, pixels } = centroidOf(image, namedColour(block.color));
      expect(pixels).toBeGreaterThan(30);
      const mapped = imagePointToTable(overhead.table!, point);
      expect(mapped.ok).toBe(true);
      if (!mapped.ok) continue;
      // The top face, `height` above the table, seen through the table plane's calibration, lands this far out along the ray.
      const k = (cz - scene.table.z) / (cz - (scene.table.z + block.height));
      expect(dist2(mapped.table, [cx + (block.x - cx) * k, cy + (block.y - cy) * k])).toBeLessThan(0.002);
      expect(dist2(mapped.table, [block.x, block.y])).toBeLessThan(0.005);
    }
  });

  it("a point outside the calibration points' hull is flagged extrapolated", () => {
    const corner = imagePointToTable(overhead.table!, [990, 10]);
    expect(corner.ok && corner.extrapolated).toBe(true);
  });

  it("encodes whole JPEGs and PNGs of the configured size; a PNG decodes to exactly the rendered pixels", () => {
    const pose = config.arm.namedPoses.home!;
    for (const format of ["jpeg", "png"] as const) {
      const src = new SimCameraSource({
        camera: { ...overhead, sim: { ...overhead.sim, format } },
        arm: config,
        pose: () => ({ pose: { ...pose, gripper: 1 }, stampMs: Date.now() }),
      });
      const frame = src.render();
      const info = inspectImage(frame.bytes);
      expect(info).toEqual({ ok: true, format, width: 640, height: 480 });
      expect(frame.captureTimeFrom).toBe("rendered");
      if (format === "png") {
        const decoded = decodeImage(frame.bytes);
        const red = centroidOf(decoded, namedColour("red"));
        expect(red.pixels).toBeGreaterThan(30);
      } else {
        // JPEG is lossy: the red block is still found, near its exact centroid.
        const decoded = decodeImage(frame.bytes);
        const exact = centroidOf(renderScene(camera, scene, undefined), namedColour("red")).point;
        const lossy = centroidOf(decoded, namedColour("red"), 60).point;
        expect(dist2(lossy, exact)).toBeLessThan(2);
      }
    }
  });

  it("draws the gripper where forward kinematics puts the tool tip (white tip marker at its projection)", () => {
    const kin = armKinematicsOf(config)!;
    const pose = { ...config.arm.namedPoses.ready!, gripper: 0.5 };
    const tip = positionOf(kin.chain.tip(jointVectorOf(kin, pose)!));
    const src = new SimCameraSource({
      camera: { ...overhead, sim: { ...overhead.sim, format: "png" } },
      arm: config,
      pose: () => ({ pose, stampMs: Date.now() }),
    });
    const image = decodeImage(src.render().bytes);
    const marker = centroidOf(image, [255, 255, 255]);
    expect(marker.pixels).toBeGreaterThan(5);
    const expected = camera.toNormalised(tip)!;
    // Within a pixel (1000/480 ≈ 2.1 units per row).
    expect(dist2(marker.point, expected)).toBeLessThan(2.5);
  });

  it("an unknown pose renders the scene without the arm and says so; the frame is as old as the pose it draws", () => {
    const none = new SimCameraSource({ camera: overhead, arm: config, pose: () => undefined });
    expect(none.render().notes.join(" ")).toMatch(/pose is unknown/);
    const old = new SimCameraSource({
      camera: overhead,
      arm: config,
      pose: () => ({ pose: config.arm.namedPoses.home!, stampMs: 1000 }),
      now: () => 6000,
    });
    expect(old.render().ageMs).toBe(5000);
  });
});
