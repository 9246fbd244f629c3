import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { createHarness, type Harness } from "../support/executorHarness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Joint limits as in each URDF (radians); home is a pose a person would start from. */
const ARMS = [
  {
    name: "SO-101",
    urdf: "so101.urdf",
    tip: "gripper_frame_link",
    joints: [
      ["shoulder_pan", -1.91986, 1.91986, 0],
      ["shoulder_lift", -1.74533, 1.74533, 0],
      ["elbow_flex", -1.74533, 1.5708, 0],
      ["wrist_flex", -1.65806, 1.65806, 0],
      ["wrist_roll", -2.79253, 2.79253, 0],
    ],
  },
  {
    name: "Koch v1.1",
    urdf: "koch-v1.1.urdf",
    tip: "tool_link",
    joints: [
      ["shoulder_pan", -3.14159, 3.14159, 0],
      ["shoulder_lift", -1.4, 1.5707, 0],
      ["elbow_flex", -1.5707, 1.3, 0],
      ["wrist_flex", -3.14159, 0.5, 0],
      ["wrist_roll", -3.14159, 3.14159, 0],
    ],
  },
] as const;

describe.each(ARMS)("the shipped $name URDF with a five-axis arm config", ({ urdf, tip, joints }) => {
  const config = parseConfig(
    {
      arm: {
        name: "five_axis",
        joints: joints.map(([name, min, max, home]) => ({
          name,
          min,
          max,
          max_velocity: 3,
          max_acceleration: 10,
          home,
        })),
        gripper: { name: "gripper" },
        urdf: join(packageRoot(), "config", "urdf", urdf),
        base_link: "base_link",
        tip_link: tip,
      },
      workspace: { keep_in: { min: [-0.6, -0.6, -0.05], max: [0.6, 0.6, 0.7] } },
    },
    `${urdf} test config`,
  );
  const kin = armKinematicsOf(config)!;

  it("offers move_to_point (position only) and not move_to_pose", () => {
    const names = createDefaultTools(config).names();
    expect(names).toContain("move_to_point");
    expect(names).not.toContain("move_to_pose");
    expect(kin.chain.dof).toBe(5);
  });

  it("move_to_point reaches a point a small step from home within 1 mm, through the executor", async () => {
    h = await createHarness({ config, arm: { motionMs: () => 20 } });
    const start = positionOf(kin.chain.tip(joints.map(([, , , home]) => home)));
    const target: [number, number, number] = [start[0] + 0.02, start[1] - 0.015, start[2] - 0.02];
    const [r] = await h.executor.execute([
      { id: "p", name: "move_to_point", args: { x: target[0], y: target[1], z: target[2] } },
    ]);
    expect(r!.result.status).toBe("done");
    const pose = h.arm.latestStatus()!.axes;
    const reached = positionOf(kin.chain.tip(kin.jointNames.map((n) => pose[n]!.position)));
    expect(Math.hypot(reached[0] - target[0], reached[1] - target[1], reached[2] - target[2])).toBeLessThan(0.001);
  });
});
