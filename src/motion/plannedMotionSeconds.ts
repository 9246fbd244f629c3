import type { Actuator } from "../config/actuators.js";
import { restToRestTime } from "../protocol/restToRestTime.js";

export interface MotionEstimate {
  /** The slowest axis's rest-to-rest time, in seconds. */
  readonly seconds: number;
  /** Axes with no reported position, timed from the limit farthest from their target. */
  readonly assumedFarthest: readonly string[];
}

/**
 * How long a motion to these absolute targets takes at `speed`: each axis
 * travels at most `max_velocity × speed` with `max_acceleration` (the profile
 * firmware-sim runs), and the motion lasts as long as its slowest axis. It is
 * a lower bound wherever positions are known (ros2 also scales acceleration,
 * which only lengthens a motion), so a plan refused on it could never settle
 * in time.
 */
export function plannedMotionSeconds(
  targets: Readonly<Record<string, number>>,
  speed: number,
  actuators: ReadonlyMap<string, Actuator>,
  positions: Readonly<Record<string, number>> | undefined,
): MotionEstimate {
  let seconds = 0;
  const assumedFarthest: string[] = [];
  for (const [axis, target] of Object.entries(targets)) {
    const a = actuators.get(axis);
    if (!a) continue;
    let from = positions && Object.hasOwn(positions, axis) ? positions[axis] : undefined;
    if (from === undefined) {
      from = Math.abs(target - a.min) > Math.abs(a.max - target) ? a.min : a.max;
      assumedFarthest.push(axis);
    }
    seconds = Math.max(seconds, restToRestTime(target - from, a.maxVelocity * speed, a.maxAcceleration));
  }
  return { seconds, assumedFarthest };
}
