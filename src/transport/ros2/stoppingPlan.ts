import type { AxisState } from "../Transport.js";

export interface StoppingJoint {
  readonly name: string;
  readonly maxAcceleration: number;
  readonly min: number;
  readonly max: number;
}

export interface StoppingPlan {
  /** Where each joint comes to rest. */
  readonly targets: Readonly<Record<string, number>>;
  /** The common time to get there (s). */
  readonly durationS: number;
}

/**
 * A hold goal that brakes instead of yanking. JTC starts its spline from the
 * current position *and velocity* (set_point_before_trajectory_msg with the
 * current state, ros-controls/ros2_controllers jazzy @ ed360c97,
 * joint_trajectory_controller.cpp), so a hold at the measured position in
 * 0.1 s from 1 rad/s asks about 50 rad/s² of the arm — real arms
 * protective-stop on that. Instead every joint decelerates uniformly to rest
 * in the same time T = max |v|/a (the slowest to stop at its configured
 * acceleration limit sets the pace): the cubic from (p, v) to p + v·T/2 with
 * zero end velocity is exactly a constant deceleration v/T ≤ a. The measured
 * positions are first carried forward by the sample's age, since
 * /joint_states lags the arm.
 *
 * Under speed scaling s, JTC takes the measured velocity v as the spline's
 * *trajectory-time* start velocity and samples the spline at s × wall time:
 * the arm's velocity steps to s·v and the cubic's deceleration v/T in
 * trajectory time is s²·v/T in wall time. So T = s²·|v|/a brakes at exactly
 * a over the same distance the arm needs from s·v. An s read too low would
 * ask for more than a, so `speedScaling` is padded upwards (never above 1):
 * an s too high only brakes more gently.
 */
export function stoppingPlan(
  joints: readonly StoppingJoint[],
  axes: Readonly<Record<string, AxisState>>,
  sampleAgeS: number,
  minMotionS: number,
  speedScaling = 1,
): StoppingPlan | undefined {
  const s = Math.min(1, Math.max(0, speedScaling) * 1.25 + 0.05);
  let durationS = minMotionS;
  for (const j of joints) {
    const a = axes[j.name];
    if (!a) return undefined;
    durationS = Math.max(durationS, (s * s * Math.abs(a.velocity)) / j.maxAcceleration);
  }
  const targets: Record<string, number> = {};
  for (const j of joints) {
    const a = axes[j.name] as AxisState;
    const now = a.position + a.velocity * Math.max(0, sampleAgeS);
    targets[j.name] = Math.min(j.max, Math.max(j.min, now + (a.velocity * durationS) / 2));
  }
  return { targets, durationS };
}
