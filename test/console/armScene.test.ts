import { join } from "node:path";
import { Mesh, Vector3 } from "three";
import { describe, expect, it } from "vitest";
import { ArmScene } from "../../console/ArmScene.js";
import type { Bridge } from "../../src/bridge/Bridge.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { EnvelopeModel } from "../../src/safety/EnvelopeModel.js";
import { placedVolumes } from "../../src/safety/placedVolumes.js";
import { envelopeDescriptionView } from "../../src/surfaces/http/envelopeView.js";
import { ROOT } from "../surfaces/cli/processes.js";

// The console's 3D scene for every shipped arm with kinematics: the UR5e-sized
// simulated arm (the default), SO-101 and Koch. Built in Node from the same
// data the page gets (GET /v1/arm `envelope`, GET /v1/state `envelope.volumes`):
// every link volume becomes a solid, and the camera's framing holds the whole
// arm in each of its named poses. (The ROS configs read their URDF from the
// robot at start and are drawn the same way once it arrives.)

const ARMS = ["sim-arm.yaml", "so101.yaml", "koch-follower.yaml"];

function meshes(scene: ArmScene): number {
  let n = 0;
  scene.scene.traverse((o) => {
    if (o instanceof Mesh) n++;
  });
  return n;
}

describe.each(ARMS)("the 3D scene of %s", (file) => {
  const config = loadConfig(join(ROOT, "config", file));
  // envelopeDescriptionView reads the bridge's config only.
  const envelope = envelopeDescriptionView({ config } as Bridge);
  const model = EnvelopeModel.of(config)!;

  it("has link volumes, a keep_in box and a floor to draw", () => {
    expect(envelope).not.toBeNull();
    expect(envelope!.link_volumes.length).toBeGreaterThanOrEqual(5);
    expect(envelope!.keep_in).not.toBeNull();
    expect(envelope!.floor_z).not.toBeNull();
  });

  it.each(Object.keys(config.arm.namedPoses))(
    "draws every volume at the named pose %s, inside the framed sphere",
    (pose) => {
      const joints = config.arm.namedPoses[pose]!;
      const volumes = placedVolumes(model, joints)!;
      expect(volumes.length).toBe(envelope!.link_volumes.length);
      const scene = new ArmScene(envelope!, volumes);
      const empty = meshes(scene);
      scene.setLive(volumes, "live");
      // A box is one solid, a capsule two end balls and (unless its ends meet) a tube.
      expect(meshes(scene) - empty).toBeGreaterThanOrEqual(volumes.length);
      const { center, radius } = scene.bounds;
      for (const { link, shape } of volumes) {
        const points = shape.kind === "box" ? [shape.center] : [shape.a, shape.b];
        for (const p of points) expect(new Vector3(...p).distanceTo(center), `${link} at ${pose}`).toBeLessThan(radius);
      }
      scene.setLive(null, "stale");
      expect(meshes(scene)).toBe(empty);
      scene.dispose();
    },
  );
});
