import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { frankaDouble, urDriverDouble } from "../doubles/robotDoubles.js";
import type { SimTrajectoryController } from "../doubles/SimTrajectoryController.js";
import { useRos2Double, type DoubleSimulation } from "./ros2OnDoubleHarness.js";

// The configs' joint caps ("caps for a model-driven arm next to people") and limits.max_tool_speed_mps, held on
// the spline JTC really runs: the double interpolates the goal's points as JTC does (test/doubles/jtcSpline.ts) and
// records every control cycle's command, from which the peaks here are measured.

const { start } = useRos2Double();
const UR_PATH = join(packageRoot(), "config", "ur5e-ros2.yaml");
const FR3_PATH = join(packageRoot(), "config", "franka-fr3-ros2.yaml");

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function armOn(config: ArmConfig, sim: DoubleSimulation) {
  const o = await start(undefined, { distro: "jazzy", ...sim }, config);
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
  const name = config.arm.controllers[0]!.name;
  return { o, executor, jtc: o.double.world.controllers.get(name)! };
}

/** Per joint of the controller: the largest |velocity| and |acceleration| it commanded for its first goal. */
function measuredPeaks(jtc: SimTrajectoryController): Map<string, { v: number; a: number }> {
  const goalId = jtc.goals[0]!.id;
  const peaks = new Map<string, { v: number; a: number }>();
  const joints = jtc.options.joints;
  for (const c of jtc.commanded.filter((x) => x.goalId === goalId)) {
    joints.forEach((j, i) => {
      const p = peaks.get(j) ?? { v: 0, a: 0 };
      peaks.set(j, {
        v: Math.max(p.v, Math.abs(c.velocities[i] ?? 0)),
        a: Math.max(p.a, Math.abs(c.accelerations[i] ?? 0)),
      });
    });
  }
  return peaks;
}

/** Checks every joint's measured peaks against its caps × `fraction`; returns the highest share of a cap reached. */
function expectWithinCaps(config: ArmConfig, jtc: SimTrajectoryController, fraction: number): number {
  const peaks = measuredPeaks(jtc);
  expect(peaks.size).toBe(jtc.options.joints.length);
  let highest = 0;
  for (const joint of config.arm.joints) {
    const peak = peaks.get(joint.name)!;
    expect(peak.v, `${joint.name} velocity`).toBeLessThanOrEqual(joint.maxVelocity * fraction * (1 + 1e-6));
    expect(peak.a, `${joint.name} acceleration`).toBeLessThanOrEqual(joint.maxAcceleration * fraction * (1 + 1e-6));
    highest = Math.max(highest, peak.v / (joint.maxVelocity * fraction));
  }
  return highest;
}

async function moveJoints(
  executor: ReturnType<typeof composeExecutor>,
  positions: Record<string, number>,
  speed: number,
  id = "m",
) {
  const [r] = await executor.execute([{ id, name: "move_joints", args: { positions, speed } }], {
    deadlineMs: 30_000,
  });
  return r!.result;
}

function expectDone(result: Awaited<ReturnType<typeof moveJoints>>, jtc: SimTrajectoryController) {
  expect(result, JSON.stringify(result)).toMatchObject({ status: "done", settled_by: "completion", timed_out: false });
  expect(result.message).not.toMatch(/stall|pause|fault|limit/i);
  expect(jtc.goals[0]!.status).toBe(GOAL_STATUS.SUCCEEDED);
}

describe("speed caps on the spline JTC runs (UR: config/ur5e-ros2.yaml on ur_robot_driver's double)", () => {
  it.each([
    [1, { shoulder_pan_joint: 0.8, wrist_3_joint: -1.8 }],
    [0.3, { wrist_3_joint: 1.2 }],
  ])(
    "slider at %s: a cruising move is done, and no joint is ever commanded over slider × its max_velocity or max_acceleration",
    async (slider, targets) => {
      const config = loadConfig(UR_PATH);
      const { o, executor, jtc } = await armOn(config, urDriverDouble(config, slider));
      const result = await moveJoints(executor, targets, 1);
      expectDone(result, jtc);
      // The cap is reached while cruising (the plan is not slower than it needs to be) and never passed.
      expect(expectWithinCaps(config, jtc, slider)).toBeGreaterThan(0.97);
      for (const [joint, to] of Object.entries(targets)) expect(o.double.world.position(joint)).toBeCloseTo(to, 1);
    },
    30_000,
  );

  it("limits.max_tool_speed_mps 0.25: the move is slowed and tool0's measured speed on the commanded spline stays under 0.25 m/s", async () => {
    const base = loadConfig(UR_PATH);
    const config: ArmConfig = { ...base, limits: { ...base.limits, maxToolSpeedMps: 0.25 } };
    const { o, executor, jtc } = await armOn(config, urDriverDouble(config, 1));
    const result = await moveJoints(executor, { shoulder_pan_joint: 0.8 }, 1);
    expectDone(result, jtc);
    expect(result.message).toMatch(/the target was reached/);
    // Slowed: at speed 1 the 0.8 rad would take 1.3 s (0.8 s at 1 rad/s plus 0.5 s of ramps).
    const sent = jtc.goals[0]!.goal as {
      trajectory: { points: Array<{ time_from_start: { sec: number; nanosec: number } }> };
    };
    const end = sent.trajectory.points.at(-1)!.time_from_start;
    expect(end.sec + end.nanosec / 1e9).toBeGreaterThan(1.3);
    const kin = armKinematicsOf(o.transport.config)!;
    const order = jtc.options.joints;
    const samples = jtc.commanded.filter((c) => c.goalId === jtc.goals[0]!.id);
    expect(samples.length).toBeGreaterThan(50);
    // The tool's speed at each cycle from the commanded joint velocities: |FK(q + ε·q̇) − FK(q)| / ε.
    let peak = 0;
    const eps = 1e-6;
    for (const c of samples) {
      const q = kin.jointNames.map((n) => c.positions[order.indexOf(n)] ?? 0);
      const ahead = kin.jointNames.map((n, k) => q[k]! + eps * (c.velocities[order.indexOf(n)] ?? 0));
      const [a, b] = [Array.from(kin.chain.tip(q)), Array.from(kin.chain.tip(ahead))];
      peak = Math.max(peak, Math.hypot(b[12]! - a[12]!, b[13]! - a[13]!, b[14]! - a[14]!) / eps);
    }
    expect(peak).toBeLessThanOrEqual(0.25);
    expect(peak).toBeGreaterThan(0.1);
  }, 30_000);
});

describe("speed caps on the spline JTC runs (FR3: config/franka-fr3-ros2.yaml on franka_ros2's double)", () => {
  it.each([
    [1, { fr3_joint1: 1.5, fr3_joint7: 2.3 }],
    [0.3, { fr3_joint1: 0.6 }],
  ])(
    "speed %s: a cruising move is done, and no joint is ever commanded over speed × its max_velocity or max_acceleration",
    async (speed, targets) => {
      const config = loadConfig(FR3_PATH);
      const { o, executor, jtc } = await armOn(config, frankaDouble(config));
      const result = await moveJoints(executor, targets, speed);
      expectDone(result, jtc);
      expect(expectWithinCaps(config, jtc, speed)).toBeGreaterThan(0.97);
      for (const [joint, to] of Object.entries(targets)) expect(o.double.world.position(joint)).toBeCloseTo(to, 1);
    },
    30_000,
  );
});

describe("ros2.joint_limit_margin_rad on the FR3 (libfranka's position-dependent velocity limit)", () => {
  it("a target within the margin of a joint limit is refused before anything is sent, naming the margin, the reason and the nearest target allowed", async () => {
    const config = loadConfig(FR3_PATH);
    expect(config.ros2?.jointLimitMarginRad).toBe(0.05);
    const { executor, jtc } = await armOn(config, frankaDouble(config));
    // fr3_joint7's max is 3.0159: 3.0 is 15.9 mrad inside it.
    const result = await moveJoints(executor, { fr3_joint7: 3.0 }, 1);
    expect(result.status, result.message).toBe("failed");
    expect(result.message).toMatch(
      /fr3_joint7 target 3 rad is within ros2\.joint_limit_margin_rad 0\.05 of its max 3\.0159/,
    );
    expect(result.message).toMatch(/reflex/);
    expect(result.message).toMatch(/choose a target no higher than 2\.9659 rad/);
    // The double's record: nothing was sent, nothing moved.
    expect(jtc.goals).toHaveLength(0);
    expect(jtc.commanded).toHaveLength(0);
    // Just outside the margin the same joint moves, and brakes within max_acceleration into the target.
    const near = await moveJoints(executor, { fr3_joint7: 2.96 }, 1, "m2");
    expect(near, near.message).toMatchObject({ status: "done", settled_by: "completion" });
    expect(jtc.goals).toHaveLength(1);
    expectWithinCaps(config, jtc, 1);
  }, 30_000);
});
