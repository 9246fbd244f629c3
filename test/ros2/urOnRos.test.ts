import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import type { ExecutorEvent } from "../../src/executor/ExecutorEvent.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { FJT, GOAL_STATUS, JTC_TEXT, motionGoals } from "../doubles/rclnodejsDouble.js";
import type { Ros2OnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { urDriverDouble, type UrDriverRelease } from "../doubles/robotDoubles.js";
import { sleep, until, useRos2Double, type DoubleSimulation } from "./ros2OnDoubleHarness.js";

// The shipped UR5e config on ur_robot_driver's graph (test/doubles/robotDoubles.ts): the speed
// slider, a pause, path tolerance and how a halt stops, each judged by the double's record.

const { start } = useRos2Double();
const UR_PATH = join(packageRoot(), "config", "ur5e-ros2.yaml");
const CONTROLLER = "scaled_joint_trajectory_controller";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** config/ur5e-ros2.yaml, optionally patched (as parsed, camelCase). */
function urConfig(patch: (c: ArmConfig) => ArmConfig = (c) => c): ArmConfig {
  return patch(loadConfig(UR_PATH));
}

async function urArm(
  config = urConfig(),
  scaling = 1,
  extra: DoubleSimulation = {},
  driver: UrDriverRelease = "scaled",
) {
  const o = await start(undefined, { distro: "jazzy", ...urDriverDouble(config, scaling, driver), ...extra }, config);
  const ledger = IntentLedger.open(":memory:");
  const executor = composeExecutor({
    config: o.transport.config,
    registry: createDefaultTools(o.transport.config),
    transport: o.transport,
    ledger,
  });
  const events: ExecutorEvent[] = [];
  executor.onEvent((e) => events.push(e));
  cleanups.push(() => {
    executor.close();
    ledger.close();
  });
  const name = config.ros2?.controllers[0]?.name ?? CONTROLLER;
  return { o, executor, ledger, events, jtc: o.double.world.controllers.get(name)! };
}

function worldOf(o: Ros2OnDouble) {
  return o.double.world;
}

describe("config/ur5e-ros2.yaml on ur_robot_driver (the double)", () => {
  it("loads and starts: the URDF from /robot_description, the scaled controller's facts read from its parameters", async () => {
    const { o } = await urArm();
    expect(o.transport.config.arm.urdfText).toContain('<robot name="ur5e">');
    const facts = o.transport.facts!;
    expect(facts.controllers.get(CONTROLLER)).toMatchObject({ speedScaling: "hardware", decelerateOnCancel: false });
    expect(facts.controllers.get(CONTROLLER)!.pathTolerance.elbow_joint).toBe(0.2);
    expect(facts.lines.join("\n")).toMatch(/speed scaling from the hardware/);
    expect(createDefaultTools(o.transport.config).names()).toContain("move_to_pose");
  });

  it("a 12 s plan with the slider at 30 % (40 s of wall time) settles done by completion with the config's own timeouts", async () => {
    const { o, executor, events, jtc } = await urArm(urConfig(), 0.3);
    // wrist_3_joint 0 → 5.57 rad at speed 0.4: v 0.48 rad/s, a 1.2 rad/s², 5.57 / 0.48 + 0.4 = 12.0 s.
    const startedAt = Date.now();
    const [r] = await executor.execute(
      [{ id: "long", name: "move_joints", args: { positions: { wrist_3_joint: 5.57 }, speed: 0.4 } }],
      { deadlineMs: 90_000 },
    );
    const wallS = (Date.now() - startedAt) / 1000;
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion", timed_out: false });
    // Ground truth: the controller ran the trajectory behind the slider, and succeeded.
    expect(wallS).toBeGreaterThan(35);
    expect(jtc.goals).toHaveLength(1);
    expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(worldOf(o).position("wrist_3_joint")).toBeCloseTo(5.57, 2);
    const paced = events.filter((e) => e.type === "paced");
    expect(paced.length).toBeGreaterThan(0);
    expect(paced.every((e) => e.type === "paced" && !e.pace.paused && Math.abs(e.pace.factor - 0.3) < 0.1)).toBe(true);
  }, 120_000);

  it("the program paused mid-motion (speed scaling 0, safety mode NORMAL): reported paused, the budget stands still; back to 100 % the motion completes, settled once", async () => {
    // A budget of 3 s of arm time, and a pause twice as long: a wall-clock budget would have ended the wait.
    const config = urConfig((c) => ({ ...c, timeoutsMs: { ...c.timeoutsMs, moveJoints: 3000 } }));
    const { o, executor, events, jtc, ledger } = await urArm(config, 1);
    const running = executor.execute(
      [{ id: "p", name: "move_joints", args: { positions: { elbow_joint: 2.4 }, speed: 0.5 } }],
      { deadlineMs: 60_000 },
    );
    await until(o, (s) => s.axes.elbow_joint!.position > 1.7);
    // The slider cannot reach 0 on a real UR (ROS sets it no lower than 1 %): a pause is the program's.
    worldOf(o).ur!.pauseProgram();
    await sleep(6000);
    const pausedAt = worldOf(o).position("elbow_joint");
    expect(pausedAt).toBeLessThan(2.3);
    const paused = events.filter((e) => e.type === "paced" && e.pace.paused);
    expect(paused.length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === "settled" || e.type === "timed_out")).toBe(false);
    worldOf(o).ur!.resumeProgram();
    const [r] = await running;
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion", timed_out: false });
    expect(events.filter((e) => e.type === "settled")).toHaveLength(1);
    expect(ledger.get(r!.result.status === "done" ? r!.result.action_id! : "")?.state).toBe("done");
    // One goal, paused and resumed by the controller: never re-sent.
    expect(jtc.goals).toHaveLength(1);
    expect(worldOf(o).position("elbow_joint")).toBeCloseTo(2.4, 2);
  }, 60_000);

  it("a pause longer than observe.pause_max_ms ends the call unknown as paused by the teach pendant, not as a timeout or a failure", async () => {
    const config = urConfig((c) => ({
      ...c,
      timeoutsMs: { ...c.timeoutsMs, moveJoints: 3000 },
      observe: { ...c.observe, pauseMaxMs: 1500 },
    }));
    const { o, executor, jtc } = await urArm(config, 1);
    const running = executor.execute(
      [{ id: "p2", name: "move_joints", args: { positions: { elbow_joint: 2.4 }, speed: 0.5 } }],
      { deadlineMs: 60_000 },
    );
    await until(o, (s) => s.axes.elbow_joint!.position > 1.7);
    worldOf(o).ur!.pauseProgram();
    const [r] = await running;
    expect(r!.result.status).toBe("unknown");
    expect(r!.result.message).toMatch(/paused by the teach pendant/);
    expect(r!.result.message).not.toMatch(/timed out/);
    expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.EXECUTING);
  }, 60_000);

  it("a path tolerance violation (a joint blocked mid-motion): ABORTED −4 reported with the joint, and the pose observed at rest before settling", async () => {
    const { o, executor, jtc } = await urArm();
    const running = executor.execute(
      [{ id: "pt", name: "move_joints", args: { positions: { elbow_joint: 2.2, wrist_1_joint: -1.2 }, speed: 0.5 } }],
      { deadlineMs: 30_000 },
    );
    await until(o, (s) => s.axes.elbow_joint!.position > 1.72);
    worldOf(o).blockJoint("elbow_joint");
    const [r] = await running;
    // Ground truth: JTC aborted the goal for the path and held where the arm was.
    expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.ABORTED);
    expect(jtc.goals[0]!.result).toMatchObject({
      error_code: FJT.PATH_TOLERANCE_VIOLATED,
      error_string: JTC_TEXT.pathTolerance,
    });
    expect(jtc.stops.map((s) => s.reason)).toEqual(["path_tolerance"]);
    expect(r!.result.status).toBe("unknown");
    expect(r!.result.message).toMatch(/path tolerance/);
    expect(r!.result.message).toMatch(/elbow_joint/);
    // The settled pose is the resting one, as the double has it.
    const pose = r!.result.status === "unknown" ? r!.result.pose! : {};
    expect(pose.elbow_joint).toBeCloseTo(worldOf(o).position("elbow_joint"), 2);
    expect(pose.wrist_1_joint).toBeCloseTo(worldOf(o).position("wrist_1_joint"), 2);
    expect(Math.abs(o.transport.latestStatus()!.axes.wrist_1_joint!.velocity)).toBeLessThan(0.01);
  }, 40_000);

  it("halt: a cancel would stop the arm within one 2 ms control cycle; our hold goal brakes at max_acceleration instead", async () => {
    for (const mode of ["cancel", "auto"] as const) {
      const config = urConfig((c) => ({ ...c, ros2: { ...c.ros2!, haltOwnGoals: mode } }));
      const o = await start(undefined, { distro: "jazzy", ...urDriverDouble(config, 1) }, config);
      const jtc = o.double.world.controllers.get(CONTROLLER)!;
      const running = o.transport.runMotion(
        { actionId: `h-${mode}`, targets: { shoulder_pan_joint: 1.5 }, speed: 1 },
        AbortSignal.timeout(20_000),
      );
      await until(o, (s) => Math.abs(s.axes.shoulder_pan_joint!.velocity) > 0.8);
      const halt = await o.transport.halt({ signal: AbortSignal.timeout(5000) });
      expect(halt.halted).toBe(true);
      const end = await running;
      expect(end.kind === "ended" ? end.record.state : end.kind).toBe("stopped");
      if (mode === "cancel") {
        // set_hold_position: |v| / 0.002 s — hundreds of rad/s² asked of the arm.
        expect(jtc.stops).toHaveLength(1);
        expect(jtc.stops[0]).toMatchObject({ reason: "cancel", mode: "hold" });
        expect(jtc.stops[0]!.peakDeceleration).toBeGreaterThan(300);
      } else {
        expect(jtc.stops).toHaveLength(0);
        const hold = jtc.goals[1]!;
        expect(motionGoals(jtc.goals)).toHaveLength(1);
        // shoulder_pan_joint: max_acceleration 2.0 rad/s² in the config.
        expect(hold.peakAcceleration).toBeGreaterThan(0);
        expect(hold.peakAcceleration).toBeLessThanOrEqual(2.0 * 1.5);
      }
    }
  }, 60_000);

  it("halt at 30 %: JTC starts the hold from the measured velocity as trajectory-time velocity (a step to s·v); the hold still brakes within max_acceleration", async () => {
    const config = urConfig();
    const { o, jtc } = await urArm(config, 0.3);
    const running = o.transport.runMotion(
      { actionId: "hs", targets: { shoulder_pan_joint: 1.5 }, speed: 1 },
      AbortSignal.timeout(30_000),
    );
    await until(o, (s) => Math.abs(s.axes.shoulder_pan_joint!.velocity) > 0.25, 10_000);
    const v = o.double.world.velocity("shoulder_pan_joint");
    await o.transport.halt({ signal: AbortSignal.timeout(5000) });
    await running;
    const hold = jtc.goals[1]!;
    // The double's record of the new goal's start: the commanded velocity stepped from v to 0.3·v.
    expect(hold.startVelocityStep).toBeGreaterThan(0.5 * 0.7 * Math.abs(v));
    expect(hold.peakAcceleration).toBeLessThanOrEqual(2.0 * 1.5);
  }, 40_000);

  it("ur_robot_driver ≥ 6.0 (Lyrical, Rolling: ros2_controllers 6.x in the double, never Jazzy's) runs the stock joint_trajectory_controller with the slider on speed_scaling.state_interface: the recipe's renamed copy of the config reads it as hardware scaling and settles a plan at 30 % by completion", async () => {
    // The docs' recipe: a copy of the shipped config with the controller renamed (sed), nothing else.
    const dir = mkdtempSync(join(tmpdir(), "armbridge-ur6-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "ur5e-ros2-jtc.yaml");
    writeFileSync(
      path,
      readFileSync(UR_PATH, "utf8").replaceAll("scaled_joint_trajectory_controller", "joint_trajectory_controller"),
    );
    const base = loadConfig(path);
    // A move_joints budget of 5 s of arm time: a wall-clock budget would end before the 14 s the slider makes of the plan.
    const config = { ...base, timeoutsMs: { ...base.timeoutsMs, moveJoints: 5000 } };
    const { o, executor, jtc } = await urArm(config, 0.3, {}, "stock_jtc");
    const facts = o.transport.facts!.controllers.get("joint_trajectory_controller")!;
    expect(facts).toMatchObject({ speedScaling: "hardware", scalingInterface: "speed_scaling/speed_scaling_factor" });
    expect(o.transport.facts!.lines.join("\n")).toMatch(
      /joint_trajectory_controller .*speed scaling from the hardware \(speed_scaling\/speed_scaling_factor\)/,
    );
    // wrist_3_joint 0 → 1.5 rad at speed 0.4: v 0.48 rad/s, a 1.2 rad/s²: 1.5 / 0.48 + 0.4 ≈ 3.5 s of plan, ≈ 12 s of wall time.
    const [r] = await executor.execute(
      [{ id: "j", name: "move_joints", args: { positions: { wrist_3_joint: 1.5 }, speed: 0.4 } }],
      { deadlineMs: 60_000 },
    );
    expect(r!.result).toMatchObject({ status: "done", settled_by: "completion", timed_out: false });
    // Ground truth: the stock controller (no scaled controller in this graph) ran it behind the slider.
    expect(o.double.world.controllers.has(CONTROLLER)).toBe(false);
    expect(jtc.options.kind).toBe("jtc");
    expect(worldOf(o).distro).toBe("rolling");
    expect(jtc.scaling()).toBeCloseTo(0.3, 6);
    expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
    expect(worldOf(o).position("wrist_3_joint")).toBeCloseTo(1.5, 2);
  }, 90_000);
});
