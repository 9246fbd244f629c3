import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { GOAL_STATUS, JTC_TEXT, motionGoals } from "../doubles/rclnodejsDouble.js";
import { isHaltGoal } from "../doubles/haltGoals.js";
import { UR_SAFETY } from "../doubles/SimUrRobotState.js";
import { urDriverDouble } from "../doubles/robotDoubles.js";
import { sleep, until, useRos2Double, type DoubleSimulation } from "./ros2OnDoubleHarness.js";

// How a UR fails, on ur_robot_driver's graph (test/doubles/SimUrRobotState.ts): a protective stop or
// E-stop is not a pause, and a program that is not playing refuses motion with its fix. Each judged by
// the double's record of goals and positions.

const { start } = useRos2Double();
const UR_PATH = join(packageRoot(), "config", "ur5e-ros2.yaml");
const CONTROLLER = "scaled_joint_trajectory_controller";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function urArm(extra: DoubleSimulation = {}) {
  const config = loadConfig(UR_PATH);
  const o = await start(undefined, { distro: "jazzy", ...urDriverDouble(config, 1), ...extra }, config);
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
  const world = o.double.world;
  return { o, executor, world, ur: world.ur!, jtc: world.controllers.get(CONTROLLER)! };
}

const move = (id: string, elbow: number) => ({
  id,
  name: "move_joints",
  args: { positions: { elbow_joint: elbow }, speed: 0.5 },
});

const command = (actionId: string, elbow: number) => ({ actionId, targets: { elbow_joint: elbow }, speed: 0.5 });

describe("a UR protective stop or E-stop is not a pause", () => {
  it.each([
    ["protective stop", UR_SAFETY.PROTECTIVE_STOP, /PROTECTIVE_STOP/],
    ["E-stop", UR_SAFETY.ROBOT_EMERGENCY_STOP, /ROBOT_EMERGENCY_STOP/],
  ])(
    "a %s mid-motion: a HALT is latched with the cause and UR's advice, the goal ends where the arm stopped; unlocked and resumed, nothing moves",
    async (_name, mode, cause) => {
      const { o, executor, world, ur, jtc } = await urArm();
      const running = executor.execute([move("ps", 2.4)], { deadlineMs: 60_000 });
      await until(o, (s) => s.axes.elbow_joint!.position > 1.7);
      ur.safetyStop(mode);
      const [r] = await running;
      const stoppedAt = world.position("elbow_joint");
      // Ground truth: our goal was ended at the controller by a hold goal of ours, short of its target.
      expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
      expect(jtc.goals.slice(1).every(isHaltGoal)).toBe(true);
      expect(stoppedAt).toBeLessThan(2.3);
      // Stopped short of its target, by the halt the arm's stop latched (the JointStates show where).
      expect(r!.result.status).toBe("stopped");
      expect(r!.result.message).toMatch(/the arm's own safety system stopped it/);
      expect(r!.result.message).not.toMatch(/goes on when it is resumed|resume it/);
      // The bridge latched a HALT with the cause: every motion is refused until an operator releases it.
      expect(executor.halts.engaged).toMatchObject({ source: "arm" });
      // The latch's note (get_arm_state, /v1/state) carries the cause and UR's advice, never "resume".
      expect(executor.halts.engaged!.note).toMatch(cause);
      expect(executor.halts.engaged!.note).toMatch(/stop the External Control program and start it again/);
      const [next] = await executor.execute([move("ps2", 1.0)], { deadlineMs: 10_000 });
      expect(next!.result.status).toBe("blocked");
      expect(next!.result.message).toMatch(/the arm.s own safety system stopped it/);
      // The transport itself refuses too, with the cause and UR's advice.
      const direct = await o.transport.runMotion(command("ps3", 1.0), AbortSignal.timeout(5000));
      expect(direct).toMatchObject({ kind: "refused", error: { code: "ARMB_ERR_ARM_SAFETY_STOP" } });
      expect(direct.kind === "refused" ? direct.reason : "").toMatch(/safety mode .*STOP.*start it again/);
      expect(motionGoals(jtc.goals)).toHaveLength(1);
      expect(o.transport.linkState()).toMatchObject({ state: "connected", error_code: "ARMB_ERR_ARM_SAFETY_STOP" });
      // Unlocked and resumed on the pendant, as UR warns against: the cancelled motion does not carry on.
      ur.unlockSafetyStop();
      ur.resumeProgram();
      await sleep(1500);
      expect(world.position("elbow_joint")).toBeCloseTo(stoppedAt, 2);
    },
    60_000,
  );
});

describe("a UR whose External Control program is not playing", () => {
  it("stopped mid-motion: the goal aborts on deactivation, the call names the fix; refused until Play, then admitted again", async () => {
    const { o, executor, world, ur, jtc } = await urArm();
    const running = executor.execute([move("st", 2.4)], { deadlineMs: 60_000 });
    await until(o, (s) => s.axes.elbow_joint!.position > 1.7);
    ur.stopProgram();
    const [r] = await running;
    // Ground truth: the controller_stopper deactivated the controller, which aborted our goal.
    expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(jtc.goals[0]!.result).toMatchObject({ error_string: JTC_TEXT.deactivated });
    expect(world.position("elbow_joint")).toBeLessThan(2.3);
    expect(r!.result.message).toMatch(/External Control program is not running/);
    expect(r!.result.message).toMatch(/press Play/);
    expect(o.transport.linkState()).toMatchObject({ state: "connected", error_code: "ARMB_ERR_ARM_NOT_READY" });
    expect(o.transport.linkState().detail).toMatch(/dashboard_client\/play/);
    // The executor holds the controller until an operator confirms; the transport refuses with the fix meanwhile.
    const refused = await o.transport.runMotion(command("st2", 1.0), AbortSignal.timeout(5000));
    expect(refused).toMatchObject({ kind: "refused", error: { code: "ARMB_ERR_ARM_NOT_READY" } });
    expect(refused.kind === "refused" ? refused.reason : "").toMatch(/not running.*resend_robot_program/);
    expect(motionGoals(jtc.goals)).toHaveLength(1);
    ur.playProgram();
    await sleep(100);
    expect(o.transport.linkState().error_code).toBeUndefined();
    expect(jtc.activeState).toBe(true);
    const again = await o.transport.runMotion(command("st3", 1.0), AbortSignal.timeout(30_000));
    expect(again).toMatchObject({ kind: "ended", record: { state: "reached" } });
    expect(motionGoals(jtc.goals)).toHaveLength(2);
    expect(world.position("elbow_joint")).toBeCloseTo(1.0, 2);
  }, 60_000);

  it("not playing at start-up (controllers inactive unless headless_mode): the first motion is refused, nothing sent", async () => {
    const { o, executor, jtc } = await urArm({ urRobotState: { programRunning: false } });
    expect(jtc.activeState).toBe(false);
    await sleep(200); // the latched status topics reach a new subscriber on its next spin
    expect(o.transport.linkState()).toMatchObject({ state: "connected", error_code: "ARMB_ERR_ARM_NOT_READY" });
    const [r] = await executor.execute([move("s0", 1.0)], { deadlineMs: 10_000 });
    expect(r!.result.status).toBe("failed");
    expect(r!.result.message).toMatch(/nothing was sent/);
    expect(r!.result.message).toMatch(/press Play/);
    expect(jtc.goals).toHaveLength(0);
  }, 30_000);
});

describe("a SUCCEEDED before the last segment is reached (Jazzy, Kilted: ros2_controllers #2419)", () => {
  it("the call settles done only once the JointStates show the target, not on the early result", async () => {
    const config = loadConfig(UR_PATH);
    const sim = urDriverDouble(config, 1);
    const controllers = (sim.controllers ?? []).map((c) => ({ ...c, succeedsEarlyByS: 0.4 }));
    const { executor, world, jtc } = await urArm({ controllers });
    const [r] = await executor.execute([move("early", 2.4)], { deadlineMs: 30_000 });
    const atSettle = world.position("elbow_joint");
    // Ground truth: the controller said SUCCEEDED while the elbow was still short of its target.
    expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(Math.max(...jtc.succeededShortOf!)).toBeGreaterThan(0.02);
    expect(r!.result).toMatchObject({ status: "done" });
    expect(Math.abs(atSettle - 2.4)).toBeLessThan(0.01);
    const pose = r!.result.status === "done" ? r!.result.pose : undefined;
    expect(pose?.elbow_joint).toBeCloseTo(2.4, 2);
  }, 30_000);
});
