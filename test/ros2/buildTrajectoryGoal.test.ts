import { describe, expect, it } from "vitest";
import { buildTrajectoryGoal, restToRestTime, secondsToRosTime } from "../../src/transport/ros2/buildTrajectoryGoal.js";
import { ros2OptionsFileSchema } from "../../src/transport/ros2/Ros2Options.js";

const limits = new Map([
  ["a", { maxVelocity: 2, maxAcceleration: 6 }],
  ["b", { maxVelocity: 1, maxAcceleration: 2 }],
  ["c", { maxVelocity: 3, maxAcceleration: 8 }],
]);
const base = {
  joints: ["a", "b", "c"],
  current: { a: 0.1, b: -0.2, c: 0.3 },
  limits,
  positionTolerance: 0.01,
  velocityTolerance: 0,
  goalTimeToleranceS: 0.5,
  minMotionS: 0.1,
};

describe("restToRestTime", () => {
  it.each([
    // distance, vmax, amax, expected: triangle below v²/a, trapezoid above
    [0, 2, 6, 0],
    [0.3, 2, 6, 2 * Math.sqrt(0.3 / 6)],
    [2, 2, 6, 2 / 2 + 2 / 6],
    [-2, 2, 6, 2 / 2 + 2 / 6],
  ])("d=%s v=%s a=%s → %s s", (d, v, a, t) => {
    expect(restToRestTime(d, v, a)).toBeCloseTo(t, 9);
  });
});

describe("buildTrajectoryGoal", () => {
  it("names every controller joint, holds untouched ones at their measured position, ends at rest", () => {
    const { goal, finalPositions } = buildTrajectoryGoal({ ...base, targets: { b: 0.5 }, speed: 1 });
    expect(goal.trajectory.joint_names).toEqual(["a", "b", "c"]);
    const last = goal.trajectory.points.at(-1)!;
    expect(Array.from(last.positions)).toEqual([0.1, 0.5, 0.3]);
    expect(Array.from(last.velocities)).toEqual([0, 0, 0]);
    expect(finalPositions).toEqual({ a: 0.1, b: 0.5, c: 0.3 });
    expect(goal.goal_tolerance.map((t) => [t.name, t.position])).toEqual([
      ["a", 0.01],
      ["b", 0.01],
      ["c", 0.01],
    ]);
    expect(goal.goal_time_tolerance).toEqual({ sec: 0, nanosec: 500_000_000 });
  });

  it("times the motion by the slowest joint, scaled by speed", () => {
    const full = buildTrajectoryGoal({ ...base, targets: { a: 1.1, b: 0.3 }, speed: 1 });
    // a: 1.0 rad at 2 rad/s, 6 rad/s² (triangle, 0.816 s); b: 0.5 rad at 1 rad/s, 2 rad/s² (triangle, 1.0 s)
    expect(full.durationS).toBeCloseTo(Math.max(restToRestTime(1, 2, 6), restToRestTime(0.5, 1, 2)), 9);
    const half = buildTrajectoryGoal({ ...base, targets: { a: 1.1, b: 0.3 }, speed: 0.5 });
    expect(half.durationS).toBeCloseTo(Math.max(restToRestTime(1, 1, 3), restToRestTime(0.5, 0.5, 1)), 9);
    expect(half.durationS).toBeGreaterThan(full.durationS);
  });

  it("never sends a zero-length trajectory", () => {
    const { durationS, goal } = buildTrajectoryGoal({ ...base, targets: { a: 0.1 }, speed: 1 });
    expect(durationS).toBe(0.1);
    expect(goal.trajectory.points).toHaveLength(1);
    expect(goal.trajectory.points[0]!.time_from_start).toEqual({ sec: 0, nanosec: 100_000_000 });
  });

  /**
   * Each segment as JTC interpolates it (trajectory.cpp interpolate_between_points): a cubic when both ends carry
   * velocities, from the measured state (at rest here) to the first point. Written out here, apart from the double.
   */
  function jtcPeaks(
    goal: ReturnType<typeof buildTrajectoryGoal>["goal"],
    start: number[],
  ): { v: number[]; a: number[] } {
    const n = start.length;
    const v = new Array<number>(n).fill(0);
    const a = new Array<number>(n).fill(0);
    let t0 = 0,
      p0 = start,
      v0 = new Array<number>(n).fill(0);
    for (const pt of goal.trajectory.points) {
      const t1 = pt.time_from_start.sec + pt.time_from_start.nanosec / 1e9;
      const T = t1 - t0;
      expect(pt.velocities).toHaveLength(n);
      expect(pt.accelerations).toHaveLength(0);
      for (let i = 0; i < n; i++) {
        const [x0, x1, w0, w1] = [p0[i]!, pt.positions[i]!, v0[i]!, pt.velocities[i]!];
        const c2 = (-3 * x0 + 3 * x1 - 2 * w0 * T - w1 * T) / (T * T);
        const c3 = (2 * x0 - 2 * x1 + w0 * T + w1 * T) / (T * T * T);
        for (let k = 0; k <= 200; k++) {
          const t = (T * k) / 200;
          v[i] = Math.max(v[i]!, Math.abs(w0 + 2 * c2 * t + 3 * c3 * t * t));
          a[i] = Math.max(a[i]!, Math.abs(2 * c2 + 6 * c3 * t));
        }
      }
      t0 = t1;
      p0 = Array.from(pt.positions);
      v0 = Array.from(pt.velocities);
    }
    return { v, a };
  }

  it.each([
    ["a cruise on one joint", { b: 1.8 }, 1],
    ["a cruise on two joints with different caps", { a: 2.1, b: -1.2, c: -1.5 }, 1],
    ["a triangle", { a: 0.3 }, 1],
    ["a cruise at speed 0.3", { a: -2.0, b: 1.0 }, 0.3],
  ])(
    "%s: JTC's interpolation of the points stays within speed × each joint's caps, and ends at the target",
    (_, targets, speed) => {
      const plan = buildTrajectoryGoal({ ...base, targets, speed });
      const start = base.joints.map((j) => base.current[j as "a"]);
      const peaks = jtcPeaks(plan.goal, start);
      base.joints.forEach((j, i) => {
        const l = limits.get(j)!;
        expect(peaks.v[i]).toBeLessThanOrEqual(l.maxVelocity * speed * (1 + 1e-6));
        expect(peaks.a[i]).toBeLessThanOrEqual(l.maxAcceleration * speed * (1 + 1e-6));
      });
      expect(Array.from(plan.goal.trajectory.points.at(-1)!.positions)).toEqual(
        base.joints.map((j) => (targets as Record<string, number>)[j] ?? base.current[j as "a"]),
      );
      // The cap is reached where the motion cruises: the plan is no slower than it needs to be.
      if (plan.goal.trajectory.points.length === 3)
        expect(Math.max(...peaks.v.map((v, i) => v / (limits.get(base.joints[i]!)!.maxVelocity * speed)))).toBeCloseTo(
          1,
          6,
        );
    },
  );

  it("a hold (durationS given) stays one point at that time", () => {
    const { goal, durationS } = buildTrajectoryGoal({ ...base, targets: { a: 0.2 }, speed: 1, durationS: 0.4 });
    expect(durationS).toBe(0.4);
    expect(goal.trajectory.points).toHaveLength(1);
    expect(goal.trajectory.points[0]!.time_from_start).toEqual({ sec: 0, nanosec: 400_000_000 });
  });

  it("refuses to plan without a measured position for a held joint", () => {
    expect(() => buildTrajectoryGoal({ ...base, current: { a: 0, b: 0 }, targets: { a: 1 }, speed: 1 })).toThrow(
      /joint c/,
    );
  });

  it.each([
    [1.5, { sec: 1, nanosec: 500_000_000 }],
    [0.9999999999, { sec: 1, nanosec: 0 }],
    [2, { sec: 2, nanosec: 0 }],
  ])("secondsToRosTime(%s)", (s, t) => {
    expect(secondsToRosTime(s)).toEqual(t);
  });

  it("the options schema refuses goal_time_tolerance 0, which JTC reads as wait forever", () => {
    expect(ros2OptionsFileSchema.safeParse({ goal_time_tolerance_s: 0 }).success).toBe(false);
    expect(ros2OptionsFileSchema.parse({}).goalTimeToleranceS).toBeGreaterThan(0);
  });
});
