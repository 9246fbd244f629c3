import { describe, expect, it } from "vitest";
import { decodeImage } from "../../src/imaging/encodeImage.js";
import { armViewOf } from "../../src/imaging/sim/armViewOf.js";
import { ARM_RGB, renderScene } from "../../src/imaging/sim/renderScene.js";
import { TopDownCamera } from "../../src/imaging/sim/TopDownCamera.js";
import { SimCameraSource } from "../../src/cameras/sources/SimCameraSource.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { mulberry32 } from "../../src/random/mulberry32.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { centroidOf } from "../support/centroidOf.js";

// The default arm's overhead camera must show the arm whatever pose it is in:
// an operator asking "did it move?" looks at this picture. Poses are sampled
// uniformly within the joint limits (seeded), and only those the envelope
// admits are kept: a pose the bridge would never move to does not count.

const config = loadConfig();
const overhead = config.cameras.find((c) => c.name === "overhead")!;
const camera = new TopDownCamera(overhead.sim);
const gripper = config.arm.gripper?.name;
/** A few link widths' worth: a sliver at the picture's edge is not "seeing the arm". */
const MIN_ARM_PIXELS = 100;

function admittedPoses(count: number, seed: number): Record<string, number>[] {
  const random = mulberry32(seed);
  const poses: Record<string, number>[] = [];
  for (let tries = 0; poses.length < count; tries++) {
    if (tries > count * 50) throw new Error(`only ${poses.length} of ${tries} sampled poses were admitted`);
    const pose: Record<string, number> = {};
    for (const j of config.arm.joints) pose[j.name] = j.min + (j.max - j.min) * random();
    // A motion that stays where it is: the envelope's verdict on the pose itself.
    if (checkMotionEnvelope(config, pose, pose, "sample").ok) poses.push(pose);
  }
  return poses;
}

function armPixels(pose: Readonly<Record<string, number>>): number {
  const view = armViewOf(config, { ...pose, ...(gripper ? { [gripper]: 0.5 } : {}) })!;
  return centroidOf(renderScene(camera, config.scene, view), ARM_RGB).pixels;
}

describe("the default config's overhead camera sees the arm in every reachable pose", () => {
  it("draws no arm pixels where there is no arm (the check can fail)", () => {
    expect(centroidOf(renderScene(camera, config.scene, undefined), ARM_RGB).pixels).toBe(0);
  });

  it("every link and the tool stay below the camera (nothing above its near plane) in 300 sampled poses the envelope admits", () => {
    for (const pose of admittedPoses(300, 23)) {
      const view = armViewOf(config, pose)!;
      for (const point of view.links) expect(point[2], JSON.stringify(pose)).toBeLessThan(overhead.sim.position[2]);
    }
  });

  it("shows the arm (arm-coloured pixels) in each of 300 sampled poses the envelope admits", () => {
    const blind = admittedPoses(300, 41)
      .map((pose) => ({ pose, pixels: armPixels(pose) }))
      .filter((p) => p.pixels < MIN_ARM_PIXELS);
    expect(blind, `poses where the camera shows (almost) no arm: ${JSON.stringify(blind.slice(0, 3))}`).toEqual([]);
  });

  it("in every named pose: the arm, and the tool tip's marker, in the frame the bridge sends", () => {
    for (const [name, targets] of Object.entries(config.arm.namedPoses)) {
      const pose = {
        ...Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home])),
        ...targets,
        ...(gripper ? { [gripper]: 0.5 } : {}),
      };
      const source = new SimCameraSource({
        camera: { ...overhead, sim: { ...overhead.sim, format: "png" } },
        arm: config,
        pose: () => ({ pose, stampMs: Date.now() }),
      });
      const image = decodeImage(source.render().bytes);
      expect(centroidOf(image, ARM_RGB).pixels, name).toBeGreaterThan(MIN_ARM_PIXELS);
      expect(centroidOf(image, [255, 255, 255]).pixels, `${name}: the tool tip's marker`).toBeGreaterThan(5);
    }
  });
});
