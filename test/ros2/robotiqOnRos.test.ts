import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { urDriverDouble } from "../doubles/robotDoubles.js";
import { useRos2Double } from "./ros2OnDoubleHarness.js";

// config/ur5e-robotiq-ros2.yaml on ur_robot_driver + ros2_robotiq_gripper's double: a Robotiq 2F-85 that closes
// upward (0.0 rad open, 0.8 rad closed), whose driver never updates its velocity state, under the controller
// settings armbridge ships (launch/robotiq_gripper_controller.yaml). Judged by the double's record.

const { start } = useRos2Double();
const CONFIG = join(packageRoot(), "config", "ur5e-robotiq-ros2.yaml");
const JOINT = "robotiq_85_left_knuckle_joint";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function robotiqArm() {
  const config = loadConfig(CONFIG);
  const o = await start(undefined, { distro: "jazzy", ...urDriverDouble(config, 1) }, config);
  const ledger = IntentLedger.open(":memory:");
  const executor = composeExecutor({
    config: o.transport.config,
    registry: createDefaultTools(o.transport.config),
    transport: o.transport,
    ledger,
  });
  cleanups.push(() => {
    executor.close();
    ledger.close();
  });
  const gripper = o.double.world.gripper!;
  return { o, executor, gripper, world: o.double.world };
}

async function setGripper(executor: ReturnType<typeof composeExecutor>, position: number) {
  const [r] = await executor.execute([{ id: `g${position}`, name: "set_gripper", args: { position } }], {
    deadlineMs: 10_000,
  });
  return r!.result;
}

describe("a Robotiq 2F-85 (closes upward, velocity state never updated) on the double", () => {
  it("the shipped controller settings take the driver's velocity as it is: the double's controller reads 0 rad/s, stall_timeout outlasts a stroke", async () => {
    const { gripper } = await robotiqArm();
    expect(gripper.options.velocityState).toBe("never_updated");
    expect(gripper.parameters()).toMatchObject({ allow_stalling: true, stall_timeout: 3.0, goal_tolerance: 0.02 });
  });

  it("closing on an object is a grasp: done, 'closed on an object … and holds it', the controller's stall where the fingers stopped", async () => {
    const { executor, gripper, world } = await robotiqArm();
    expect(world.position(JOINT)).toBeCloseTo(0, 3);
    world.placeObject(JOINT, 0.5);
    const result = await setGripper(executor, 0);
    expect(result, result.message).toMatchObject({ status: "done" });
    // 0.5 rad of 0.0 (open) .. 0.8 (closed) is 0.375 of the opening.
    expect(result.message).toMatch(/closed on an object at 0\.375 of its opening/);
    expect(result.message).toMatch(/holds it/);
    expect(result.message).not.toMatch(/stalled|short of its target/);
    // Ground truth: one goal to 0.8 rad, ended by the controller's stall check with the fingers on the object.
    expect(gripper.goals).toHaveLength(1);
    expect(gripper.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(gripper.goals[0]!.result).toMatchObject({ stalled: true, reached_goal: false });
    expect(world.position(JOINT)).toBeCloseTo(0.5, 3);
  });

  it("a free close is done at the target, reached by the controller before any stall; opening again is done too", async () => {
    const { executor, gripper, world } = await robotiqArm();
    const closed = await setGripper(executor, 0);
    expect(closed, closed.message).toMatchObject({ status: "done", settled_by: "completion" });
    expect(closed.message).toMatch(/the target was reached/);
    expect(gripper.goals[0]!.result).toMatchObject({ stalled: false, reached_goal: true });
    expect(world.position(JOINT)).toBeGreaterThan(0.78);
    const opened = await setGripper(executor, 1);
    expect(opened, opened.message).toMatchObject({ status: "done", settled_by: "completion" });
    expect(gripper.goals[1]!.result).toMatchObject({ stalled: false, reached_goal: true });
    expect(world.position(JOINT)).toBeLessThan(0.02);
  });
});
