import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { FRANKA_TEXT, GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import type { RclnodejsDoubleOptions } from "../doubles/rclnodejsDouble.js";
import { frankaDouble } from "../doubles/robotDoubles.js";
import { sleep, until, useRos2Double } from "./ros2OnDoubleHarness.js";

// The shipped FR3 config on franka_ros2's graph (test/doubles/robotDoubles.ts, SimFrankaGripper.ts),
// each outcome judged by the double's record of what the gripper was told and where it is.

const { start } = useRos2Double();
const FRANKA_PATH = join(packageRoot(), "config", "franka-fr3-ros2.yaml");

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function frankaConfig(patch: (c: ArmConfig) => ArmConfig = (c) => c): ArmConfig {
  return patch(loadConfig(FRANKA_PATH));
}

async function frankaArm(config = frankaConfig(), sim: Partial<RclnodejsDoubleOptions> = {}) {
  const o = await start(undefined, { distro: "jazzy", ...frankaDouble(config), ...sim }, config);
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
  return { o, executor, gripper: o.double.world.frankaGripper!, world: o.double.world };
}

describe("config/franka-fr3-ros2.yaml on franka_ros2 (the double)", () => {
  it("loads and starts: the URDF from /robot_description, franka_gripper's semantics, the drivers' own JointState topics", async () => {
    const { o } = await frankaArm();
    expect(o.transport.config.arm.urdfText).toContain('<robot name="fr3">');
    const facts = o.transport.facts!;
    expect(facts.gripper).toMatchObject({ behaviour: "franka", graspEpsilonOuter: 0.005 });
    expect(facts.jointStates.topics).toEqual(["/franka/joint_states", "/franka_gripper/joint_states"]);
    expect(o.transport.latestStatus()!.axes.gripper!.position).toBeCloseTo(1, 2);
  });

  it("an arm motion on fr3_arm_controller (effort commands, velocity errors checked) ends done by completion", async () => {
    const { executor, world } = await frankaArm();
    const [r] = await executor.execute([{ id: "a", name: "move_joints", args: { positions: { fr3_joint4: -2.0 } } }], {
      deadlineMs: 20_000,
    });
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion" });
    expect(world.controllers.get("fr3_arm_controller")!.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(world.position("fr3_joint4")).toBeCloseTo(-2.0, 2);
  });

  it('closing on an object is done, "closed on an object at width W", and says franka_gripper keeps no grasp force on it (the grasp failed: outside its epsilon)', async () => {
    const { executor, gripper } = await frankaArm();
    gripper.objectWidth = 0.031;
    const [r] = await executor.execute([{ id: "g", name: "set_gripper", args: { position: 0 } }], {
      deadlineMs: 10_000,
    });
    expect(r!.result.status).toBe("done");
    expect(r!.result.message).toMatch(
      /the gripper closed on an object at width 0\.031 m, but franka_gripper counts it no grasp/,
    );
    expect(r!.result.message).toMatch(/keeps no grasp force on it/);
    expect(r!.result.message).not.toMatch(/holds it/);
    // Ground truth: a grasp to width 0 (position 0 = half of it), stopped by the object, failed; nothing gripped.
    expect(gripper.received[0]).toMatchObject({ command: { position: 0 } });
    expect(gripper.commandedWidths).toEqual([0]);
    expect(gripper.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(gripper.goals[0]!.result).toMatchObject({ reached_goal: false, stalled: false });
    expect(gripper.width).toBeCloseTo(0.031, 4);
    expect(gripper.isGrasped).toBe(false);
  });

  it("with default_grasp_epsilon.outer raised to take any object, the same close is a grasp that succeeds and holds it", async () => {
    const config = frankaConfig();
    const g = config.ros2!.gripper!;
    const sim = {
      frankaGripper: {
        actionName: g.actionName,
        joints: ["fr3_finger_joint1", "fr3_finger_joint2"] as const,
        maxWidth: 0.08,
        width: 0.08,
        epsilonOuter: 0.08,
      },
    };
    const { executor, gripper, o } = await frankaArm(config, sim);
    expect(o.transport.facts!.gripper).toMatchObject({ behaviour: "franka", graspEpsilonOuter: 0.08 });
    gripper.objectWidth = 0.031;
    const [r] = await executor.execute([{ id: "g", name: "set_gripper", args: { position: 0 } }], {
      deadlineMs: 10_000,
    });
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion" });
    expect(r!.result.message).toMatch(/the gripper closed on an object at width 0\.031 m and holds it/);
    expect(gripper.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(gripper.goals[0]!.result).toMatchObject({ reached_goal: true });
    expect(gripper.isGrasped).toBe(true);
  });

  it("a halted close: franka_gripper stops the gripper and ends the goal CANCELED with an unfilled result (position 0); armbridge reads where it stopped from the fingers", async () => {
    const { o, gripper } = await frankaArm();
    const running = o.transport.runMotion(
      { actionId: "gc", targets: { gripper: 0 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );
    await until(o, (s) => s.axes.gripper!.position < 0.8);
    const halt = await o.transport.halt({ signal: AbortSignal.timeout(5000) });
    expect(halt.halted).toBe(true);
    const end = await running;
    expect(end.kind === "ended" ? end.record.state : end.kind).toBe("stopped");
    // Ground truth: cancelled part way, the result's position is the unfilled 0, not the width.
    expect(gripper.goals[0]!.status).toBe(GOAL_STATUS.CANCELED);
    expect(gripper.goals[0]!.result).toMatchObject({ position: 0, reached_goal: false });
    expect(gripper.width).toBeGreaterThan(0.01);
    expect(gripper.isGrasped).toBe(false);
    await sleep(200);
    expect(o.transport.latestStatus()!.axes.gripper!.position).toBeCloseTo(gripper.width / 0.08, 1);
  });

  it("closing on nothing is done at the commanded width (the grasp succeeds within its epsilon)", async () => {
    const { executor, gripper, o } = await frankaArm();
    const [r] = await executor.execute([{ id: "g", name: "set_gripper", args: { position: 0.25 } }], {
      deadlineMs: 10_000,
    });
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion" });
    expect(r!.result.message).toMatch(/the target was reached/);
    // 0.25 of the 80 mm stroke: a 20 mm width, sent as a 10 mm finger position.
    expect(gripper.received[0]).toMatchObject({ command: { position: 0.01 } });
    expect(gripper.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(gripper.width).toBeCloseTo(0.02, 4);
    expect(o.transport.latestStatus()!.axes.gripper!.position).toBeCloseTo(0.25, 2);
  });

  it("a grasp error is reported with its cause, read from franka_gripper's /rosout (the result carries none)", async () => {
    const { executor, gripper, world } = await frankaArm();
    gripper.failNextCommand(FRANKA_TEXT.commandFailed);
    const [r] = await executor.execute([{ id: "g", name: "set_gripper", args: { position: 0 } }], {
      deadlineMs: 10_000,
    });
    // The fingers never moved: positive evidence that nothing happened, with the reason.
    expect(r!.result.status).toBe("failed");
    expect(r!.result.message).toMatch(/libfranka gripper: Command failed!/);
    expect(gripper.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(gripper.width).toBeCloseTo(0.08, 4);
    expect(world.logged.some((l) => l.node === "franka_gripper" && l.msg === FRANKA_TEXT.commandFailed)).toBe(true);
  });

  it("opening is a libfranka move; franka_gripper's feedback (the width) and two finger joints are read as one gripper", async () => {
    const config = frankaConfig((c) => ({ ...c, arm: { ...c.arm, gripper: { ...c.arm.gripper!, home: 0.25 } } }));
    const { executor, gripper, o } = await frankaArm(config);
    const feedback: number[] = [];
    o.transport.onFeedback((f) => feedback.push((f.feedback as { position: number }).position));
    const [r] = await executor.execute([{ id: "g", name: "set_gripper", args: { position: 1 } }], {
      deadlineMs: 10_000,
    });
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion" });
    expect(gripper.goals[0]!.result).toMatchObject({ reached_goal: true });
    expect(feedback.length).toBeGreaterThan(3);
    expect(Math.max(...feedback)).toBeLessThanOrEqual(0.08 + 1e-9);
    expect(Math.min(...feedback)).toBeGreaterThanOrEqual(0.02 - 1e-9);
  });

  it("a dead arm driver behind joint_state_publisher: its 30 Hz output stays fresh, but armbridge reads the drivers' topics and sees it go stale", async () => {
    const { o, executor, world } = await frankaArm();
    world.stopJointStates();
    const published = world.jointStatePublisher!.published;
    await sleep(800);
    // Ground truth: the aggregator went on publishing the frozen values with fresh stamps.
    expect(world.jointStatePublisher!.published).toBeGreaterThan(published + 15);
    expect(o.transport.linkState()).toMatchObject({ state: "reconnecting" });
    expect(o.transport.linkState().detail).toMatch(/franka\/joint_states/);
    const [r] = await executor.execute([{ id: "m", name: "move_joints", args: { positions: { fr3_joint1: 0.2 } } }], {
      deadlineMs: 5000,
    });
    expect(r!.result.status).not.toBe("done");
    expect(world.controllers.get("fr3_arm_controller")!.goals).toHaveLength(0);
  });

  it("without joint_states_topics, the joint_state_publisher on /joint_states is recognised and its source_list read instead", async () => {
    const config = frankaConfig((c) => ({ ...c, ros2: { ...c.ros2!, jointStatesTopics: undefined } }));
    const { o } = await frankaArm(config);
    expect(o.transport.facts!.jointStates.topics).toEqual(["/franka/joint_states", "/franka_gripper/joint_states"]);
    expect(o.transport.facts!.jointStates.how).toMatch(/joint_state_publisher/);
    await until(o, (s) => s.axes.fr3_joint1 !== undefined && s.axes.gripper !== undefined);
  });
});
