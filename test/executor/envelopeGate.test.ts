import { afterEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import { testConfig } from "../support/testConfig.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The default arm with a low ceiling: the stow pose lifts the forearm's frame to ~0.59 m. */
function lowCeiling(): ArmConfig {
  const config = testConfig();
  return {
    ...config,
    workspace: { ...config.workspace!, keepIn: { min: [-0.95, -0.95, -0.4], max: [0.95, 0.95, 0.5] } },
  };
}

describe("the executor's envelope gate: every motion tool, checked after planning, before the intent is recorded", () => {
  it("a named pose whose path leaves the envelope is rejected: no ledger row, nothing sent to the arm", async () => {
    h = await createHarness({ config: lowCeiling() });
    const [r] = await h.executor.execute([{ id: "np", name: "move_to_named_pose", args: { pose: "stow" } }]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(h.ledger.findByCallId("np")).toBeUndefined();
    expect(h.arm.effects).toHaveLength(0);
  });

  it("the gripper is not a link of the chain: set_gripper is not held back by the envelope", async () => {
    h = await createHarness({ config: lowCeiling() });
    const [r] = await h.executor.execute([{ id: "g", name: "set_gripper", args: { position: 0.3 } }]);
    expect(r!.result.status).toBe("done");
  });

  it("move_to_point is a joint move to the IK solution through the same executor: recorded, sent once, reached", async () => {
    h = await createHarness({ arm: { motionMs: () => 30 } });
    const target: [number, number, number] = [-0.6, -0.25, 0.2];
    const [r] = await h.executor.execute([
      { id: "p", name: "move_to_point", args: { x: target[0], y: target[1], z: target[2] } },
    ]);
    expect(r!.result.status).toBe("done");
    expect(h.ledger.findByCallId("p")?.state).toBe("done");
    expect(h.arm.effects).toHaveLength(1);
    const kin = armKinematicsOf(h.config)!;
    const pose = h.arm.latestStatus()!.axes;
    const tip = positionOf(kin.chain.tip(kin.jointNames.map((n) => pose[n]!.position)));
    expect(Math.hypot(tip[0] - target[0], tip[1] - target[1], tip[2] - target[2])).toBeLessThan(0.001);
  });

  it("move_to_point in a named frame: `world` (the floor, 0.4 m under the base) shifts z by 0.4 m", async () => {
    h = await createHarness({ arm: { motionMs: () => 30 } });
    const [r] = await h.executor.execute([
      { id: "w", name: "move_to_point", args: { x: -0.6, y: -0.25, z: 0.6, frame: "world" } },
    ]);
    expect(r!.result.status).toBe("done");
    const kin = armKinematicsOf(h.config)!;
    const pose = h.arm.latestStatus()!.axes;
    const tip = positionOf(kin.chain.tip(kin.jointNames.map((n) => pose[n]!.position)));
    expect(Math.hypot(tip[0] + 0.6, tip[1] + 0.25, tip[2] - 0.2)).toBeLessThan(0.001);
    const [bad] = await h.executor.execute([
      { id: "w2", name: "move_to_point", args: { x: 0, y: 0, z: 0.5, frame: "tool0" } },
    ]);
    expect(bad!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ARGS_INVALID" });
  });

  it("move_to_pose on the six-axis arm reaches position and orientation; a quaternion works the same as roll/pitch/yaw", async () => {
    h = await createHarness({ arm: { motionMs: () => 30 } });
    const [a] = await h.executor.execute([
      {
        id: "rpy",
        name: "move_to_pose",
        args: { position: { x: -0.5, y: -0.2, z: 0.3 }, orientation: { roll: Math.PI, pitch: 0, yaw: 0 } },
      },
    ]);
    expect(a!.result.status).toBe("done");
    const [b] = await h.executor.execute([
      {
        id: "quat",
        name: "move_to_pose",
        args: { position: { x: -0.45, y: -0.2, z: 0.3 }, orientation: { x: 1, y: 0, z: 0, w: 0 } },
      },
    ]);
    expect(b!.result.status).toBe("done");
    const kin = armKinematicsOf(h.config)!;
    const pose = h.arm.latestStatus()!.axes;
    const tip = kin.chain.tip(kin.jointNames.map((n) => pose[n]!.position));
    // Roll π about x: the tool's z axis points straight down.
    expect(tip[10]).toBeCloseTo(-1, 3);
    expect(tip[12]).toBeCloseTo(-0.45, 3);
  });
});
