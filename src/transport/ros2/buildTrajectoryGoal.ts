import { synchronizedTrapezoid, type SynchronizedAxis } from "../../motion/synchronizedTrapezoid.js";
import { restToRestTime } from "../../protocol/restToRestTime.js";
import type { FollowJointTrajectoryGoal, JointTrajectoryPoint, RosTime } from "./rclTypes.js";

export { restToRestTime };

export interface JointLimits {
  readonly maxVelocity: number;
  readonly maxAcceleration: number;
}

export interface TrajectoryGoalInput {
  /** The trajectory header's frame_id (JTC ignores it): marks hold goals as ours. */
  readonly frameId?: string;
  /** Every joint of the controller, in the controller's order. */
  readonly joints: readonly string[];
  /** Absolute targets for the commanded joints (a subset of `joints`). */
  readonly targets: Readonly<Record<string, number>>;
  /** Measured positions (from /joint_states) for every joint of the controller. */
  readonly current: Readonly<Record<string, number>>;
  readonly limits: ReadonlyMap<string, JointLimits>;
  /** Fraction of each joint's velocity and acceleration limits, in (0, 1]. */
  readonly speed: number;
  readonly positionTolerance: number;
  /** 0 keeps the controller default. */
  readonly velocityTolerance: number;
  readonly goalTimeToleranceS: number;
  readonly minMotionS: number;
  /**
   * The trajectory time to use instead of the rest-to-rest time: for a goal
   * that starts from a moving arm (a hold at the stopping point), whose timing
   * comes from the deceleration, not from a move between two rests.
   */
  readonly durationS?: number;
}

export interface TrajectoryGoalPlan {
  readonly goal: FollowJointTrajectoryGoal;
  /** time_from_start of the final point. */
  readonly durationS: number;
  /** The final positions of every controller joint (targets, and held joints at their measured position). */
  readonly finalPositions: Readonly<Record<string, number>>;
}

export function secondsToRosTime(seconds: number): RosTime {
  let sec = Math.floor(seconds);
  let nanosec = Math.round((seconds - sec) * 1e9);
  if (nanosec >= 1e9) {
    sec += 1;
    nanosec -= 1e9;
  }
  return { sec, nanosec };
}

export function rosTimeToSeconds(t: RosTime): number {
  return t.sec + t.nanosec / 1e9;
}

/**
 * One FollowJointTrajectory goal for a JTC: absolute positions for every
 * joint of the controller (the untouched ones held where /joint_states last
 * saw them, since JTC rejects partial goals by default), a last point with
 * zero velocity (JTC rejects a last point that does not come to rest), with
 * explicit goal tolerances and a nonzero goal_time_tolerance so the
 * controller aborts instead of waiting forever on a joint that cannot get
 * there.
 *
 * A move between two rests follows one synchronised trapezoid whose peaks
 * are the joints' caps scaled by `speed` (synchronizedTrapezoid). JTC does
 * not follow a trapezoid of its own: it interpolates between the points it is
 * given, linearly from positions alone, as a cubic when both ends of a segment
 * carry velocities, a quintic when they also carry accelerations
 * (Trajectory::interpolate_between_points, joint_trajectory_controller/src/
 * trajectory.cpp, ros-controls/ros2_controllers @ 01936294). One point with
 * zero velocity is a single cubic whose peak velocity is 1.5× the average,
 * over the caps whenever the trapezoid cruises. So the goal carries a point
 * at each phase change of the trapezoid with its positions and velocities and
 * no accelerations: every segment is then a cubic through a quadratic or
 * linear piece of the trapezoid, which a cubic reproduces exactly, and the
 * first segment, from JTC's measured state (positions and velocities, no
 * accelerations without an acceleration state interface:
 * read_state_from_state_interfaces), is a cubic too.
 *
 * A goal with `durationS` (a hold from a moving arm) is one point at that time.
 */
export function buildTrajectoryGoal(input: TrajectoryGoalInput): TrajectoryGoalPlan {
  const finalPositions: Record<string, number> = {};
  const axes: SynchronizedAxis[] = [];
  for (const joint of input.joints) {
    const from = input.current[joint];
    if (from === undefined) throw new RangeError(`no measured position for joint ${joint}`);
    const to = input.targets[joint] ?? from;
    finalPositions[joint] = to;
    const limits = input.limits.get(joint);
    if (!limits) throw new RangeError(`no limits for joint ${joint}`);
    axes.push({
      distance: to - from,
      maxVelocity: limits.maxVelocity * input.speed,
      maxAcceleration: limits.maxAcceleration * input.speed,
    });
  }
  const final = input.joints.map((j) => finalPositions[j] ?? 0);
  const zeros = input.joints.map(() => 0);
  let points: JointTrajectoryPoint[];
  let durationS: number;
  if (input.durationS !== undefined) {
    durationS = Math.max(input.durationS, input.minMotionS);
    points = [trajectoryPoint(final, zeros, durationS)];
  } else {
    const law = synchronizedTrapezoid(axes, input.minMotionS);
    durationS = law.durationS;
    points = law.breaks.map((t, k) => {
      if (k === law.breaks.length - 1) return trajectoryPoint(final, zeros, t);
      const { s, ds } = law.at(t);
      return trajectoryPoint(
        input.joints.map((j, i) => (input.current[j] ?? 0) + (axes[i]?.distance ?? 0) * s),
        axes.map((a) => a.distance * ds),
        t,
      );
    });
  }
  const goal: FollowJointTrajectoryGoal = {
    trajectory: {
      // A zero stamp means "start now" to JTC; a wall-clock stamp would be wrong under use_sim_time.
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: input.frameId ?? "" },
      joint_names: [...input.joints],
      points,
    },
    path_tolerance: [],
    goal_tolerance: input.joints.map((name) => ({
      name,
      position: input.positionTolerance,
      velocity: input.velocityTolerance,
      acceleration: 0,
    })),
    goal_time_tolerance: secondsToRosTime(input.goalTimeToleranceS),
  };
  return { goal, durationS, finalPositions };
}

/** Positions and velocities, no accelerations: JTC interpolates the segment ending here as a cubic. */
function trajectoryPoint(positions: number[], velocities: number[], t: number): JointTrajectoryPoint {
  return { positions, velocities, accelerations: [], effort: [], time_from_start: secondsToRosTime(t) };
}
