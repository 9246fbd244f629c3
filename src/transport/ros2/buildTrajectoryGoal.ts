import { restToRestTime } from "../../protocol/restToRestTime.js";
import type { FollowJointTrajectoryGoal, RosTime } from "./rclTypes.js";

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
 * saw them, since JTC rejects partial goals by default), one final point with
 * zero velocity (JTC rejects a last point that does not come to rest), timed
 * by the slowest joint's limits scaled by `speed`, with explicit goal
 * tolerances and a nonzero goal_time_tolerance so the controller aborts
 * instead of waiting forever on a joint that cannot get there.
 */
export function buildTrajectoryGoal(input: TrajectoryGoalInput): TrajectoryGoalPlan {
  const finalPositions: Record<string, number> = {};
  let durationS = 0;
  for (const joint of input.joints) {
    const from = input.current[joint];
    if (from === undefined) throw new RangeError(`no measured position for joint ${joint}`);
    const to = input.targets[joint] ?? from;
    finalPositions[joint] = to;
    const limits = input.limits.get(joint);
    if (!limits) throw new RangeError(`no limits for joint ${joint}`);
    durationS = Math.max(
      durationS,
      restToRestTime(to - from, limits.maxVelocity * input.speed, limits.maxAcceleration * input.speed),
    );
  }
  durationS = Math.max(input.durationS ?? durationS, input.minMotionS);
  const zeros = input.joints.map(() => 0);
  const goal: FollowJointTrajectoryGoal = {
    trajectory: {
      // A zero stamp means "start now" to JTC; a wall-clock stamp would be wrong under use_sim_time.
      header: { stamp: { sec: 0, nanosec: 0 }, frame_id: input.frameId ?? "" },
      joint_names: [...input.joints],
      points: [
        {
          positions: input.joints.map((j) => finalPositions[j] ?? 0),
          velocities: zeros,
          accelerations: [],
          effort: [],
          time_from_start: secondsToRosTime(durationS),
        },
      ],
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
