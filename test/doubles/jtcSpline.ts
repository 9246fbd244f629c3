/**
 * JTC's spline between two trajectory points, by which fields both ends carry
 * (Trajectory::interpolate_between_points, joint_trajectory_controller/src/
 * trajectory.cpp, ros-controls/ros2_controllers @ 01936294ee79):
 *
 * - positions only (either end without velocities): linear, a constant
 *   velocity and no acceleration;
 * - velocities at both ends, accelerations missing at either: a cubic;
 * - velocities and accelerations at both ends: a quintic.
 *
 * The first segment starts from the controller's state before the
 * trajectory, which carries velocities only with a velocity state interface
 * and accelerations only with an acceleration state interface
 * (read_state_from_state_interfaces clears them otherwise, "so the property is
 * ignored during interpolation"). Outside [0, T] the sample is the nearer
 * end's position with velocity and acceleration taken as the linear case.
 */

/** One end of a segment as JTC sees it: an absent field is an empty array there. */
export interface SplineEnd {
  readonly p: number;
  readonly v?: number | undefined;
  readonly a?: number | undefined;
}

export interface SplineSample {
  readonly p: number;
  readonly v: number;
  readonly a: number;
}

/** The sample `t` seconds into a segment `T` seconds long. */
export function sampleJtcSegment(from: SplineEnd, to: SplineEnd, T: number, t: number): SplineSample {
  let hasVelocity = from.v !== undefined && to.v !== undefined;
  let hasAcceleration = from.a !== undefined && to.a !== undefined;
  let tt = t;
  if (tt < 0 || tt > T) {
    tt = tt < 0 ? 0 : T;
    hasVelocity = hasAcceleration = false;
  }
  if (!hasVelocity && !hasAcceleration) {
    const slope = T !== 0 ? (to.p - from.p) / T : 0;
    return { p: from.p + slope * tt, v: slope, a: 0 };
  }
  const p0 = from.p,
    p1 = to.p,
    v0 = from.v ?? 0,
    v1 = to.v ?? 0;
  if (!hasAcceleration) {
    const c2 = T !== 0 ? (-3 * p0 + 3 * p1 - 2 * v0 * T - v1 * T) / T ** 2 : 0;
    const c3 = T !== 0 ? (2 * p0 - 2 * p1 + v0 * T + v1 * T) / T ** 3 : 0;
    return {
      p: p0 + v0 * tt + c2 * tt ** 2 + c3 * tt ** 3,
      v: v0 + 2 * c2 * tt + 3 * c3 * tt ** 2,
      a: 2 * c2 + 6 * c3 * tt,
    };
  }
  const a0 = from.a ?? 0,
    a1 = to.a ?? 0;
  const c2 = 0.5 * a0;
  const c3 =
    T !== 0 ? (-20 * p0 + 20 * p1 - 3 * a0 * T ** 2 + a1 * T ** 2 - 12 * v0 * T - 8 * v1 * T) / (2 * T ** 3) : 0;
  const c4 =
    T !== 0 ? (30 * p0 - 30 * p1 + 3 * a0 * T ** 2 - 2 * a1 * T ** 2 + 16 * v0 * T + 14 * v1 * T) / (2 * T ** 4) : 0;
  const c5 = T !== 0 ? (-12 * p0 + 12 * p1 - a0 * T ** 2 + a1 * T ** 2 - 6 * v0 * T - 6 * v1 * T) / (2 * T ** 5) : 0;
  return {
    p: p0 + v0 * tt + c2 * tt ** 2 + c3 * tt ** 3 + c4 * tt ** 4 + c5 * tt ** 5,
    v: v0 + 2 * c2 * tt + 3 * c3 * tt ** 2 + 4 * c4 * tt ** 3 + 5 * c5 * tt ** 4,
    a: 2 * c2 + 6 * c3 * tt + 12 * c4 * tt ** 2 + 20 * c5 * tt ** 3,
  };
}
