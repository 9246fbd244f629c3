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
 *
 * `startVelocity: "planned"` is for a controller that blends a new goal into
 * the running trajectory (Rolling/Lyrical JTC ≥ 6.8, allow_trajectory_replacement,
 * default true): there the spline starts from the old trajectory's *planned*
 * state sampled at the current trajectory time (blend_with_active_trajectory,
 * ros-controls/ros2_controllers master @ 94e74de3, joint_trajectory_controller.cpp),
 * whose trajectory-time velocity is u = v/s for an arm moving at v. Timed
 * from v as above, the cubic would start at v/s with room for only v·T/2:
 * it brakes s⁻¹ times too hard and overshoots its target. So u replaces v:
 * T = s²·|u|/a and the target is u·T/2 ahead — in wall time a stop at a
 * from v over v²/2a, as the arm needs.
 */
export function stoppingPlan(
  joints: readonly StoppingJoint[],
  axes: Readonly<Record<string, AxisState>>,
  sampleAgeS: number,
  minMotionS: number,
  speedScaling = 1,
  startVelocity: "measured" | "planned" = "measured",
): StoppingPlan | undefined {
  const s = Math.min(1, Math.max(0, speedScaling) * 1.25 + 0.05);
  // Below 1 % the arm is paused (a real UR cannot be slowed further): its velocity is ~0 either way.
  const toTrajectoryTime = startVelocity === "planned" && speedScaling >= 0.01 ? 1 / Math.min(1, speedScaling) : 1;
  let durationS = minMotionS;
  for (const j of joints) {
    const a = axes[j.name];
    if (!a) return undefined;
    durationS = Math.max(durationS, (s * s * Math.abs(a.velocity * toTrajectoryTime)) / j.maxAcceleration);
  }
  const targets: Record<string, number> = {};
  for (const j of joints) {
    const a = axes[j.name] as AxisState;
    const now = a.position + a.velocity * Math.max(0, sampleAgeS);
    const u = a.velocity * toTrajectoryTime;
    targets[j.name] = Math.min(j.max, Math.max(j.min, now + (u * durationS) / 2));
  }
  return { targets, durationS };
}
