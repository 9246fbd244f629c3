import type { Actuator } from "../config/actuators.js";
import type { MotionTiming } from "./MotionTiming.js";
import { restToRestTime } from "../protocol/restToRestTime.js";
import { synchronizedTrapezoid } from "./synchronizedTrapezoid.js";

/** Per axis of a motion: the fastest it will move (rad/s), and, for a synchronised straight line, the peak rate of progress along it (1/s). */
export interface AxisPeaks {
  readonly velocity: Readonly<Record<string, number>>;
  /** Set when every axis follows one time law s(t) along the straight line: max ds/dt. */
  readonly pathRate: number | undefined;
}

/**
 * The peak velocity of each axis of a motion from `from` to `targets` at
 * `speed`, as `timing` runs it. An upper bound: the tool-speed limit is only
 * as sound as these.
 */
export function axisPeaks(
  timing: MotionTiming,
  targets: Readonly<Record<string, number>>,
  from: Readonly<Record<string, number>>,
  speed: number,
  actuators: ReadonlyMap<string, Actuator>,
): AxisPeaks {
  const velocity: Record<string, number> = {};
  const travel = (axis: string): number => Math.abs((targets[axis] ?? 0) - (from[axis] ?? targets[axis] ?? 0));
  const axes = Object.keys(targets).filter((a) => actuators.has(a));
  switch (timing.kind) {
    case "shared_duration": {
      let T = 0;
      for (const axis of axes) {
        const a = actuators.get(axis);
        if (a) T = Math.max(T, restToRestTime(travel(axis), a.maxVelocity * speed, a.maxAcceleration));
      }
      for (const axis of axes) {
        const a = actuators.get(axis);
        if (a) velocity[axis] = trapezoidCruise(travel(axis), T, a.maxAcceleration);
      }
      return { velocity, pathRate: undefined };
    }
    case "independent": {
      for (const axis of axes) {
        const a = actuators.get(axis);
        if (!a) continue;
        const v = Math.max(a.maxVelocity * speed, timing.minVelocity[axis] ?? 0);
        // A short move never reaches cruise: its peak is that of the triangle, √(d·a).
        velocity[axis] = Math.min(v, Math.sqrt(travel(axis) * a.maxAcceleration));
      }
      return { velocity, pathRate: undefined };
    }
    case "synchronized_trapezoid": {
      const groups = timing.groups.map((g) => g.filter((axis) => axes.includes(axis))).filter((g) => g.length > 0);
      // Axes no controller lists are timed on their own.
      const listed = new Set(groups.flat());
      for (const axis of axes) if (!listed.has(axis)) groups.push([axis]);
      let pathRate: number | undefined;
      for (const group of groups) {
        const law = synchronizedTrapezoid(
          group.flatMap((axis) => {
            const a = actuators.get(axis);
            return a
              ? [
                  {
                    distance: travel(axis),
                    maxVelocity: a.maxVelocity * speed,
                    maxAcceleration: a.maxAcceleration * speed,
                  },
                ]
              : [];
          }),
          timing.minDurationS,
        );
        for (const axis of group) velocity[axis] = travel(axis) * law.peakRate;
        pathRate = groups.length === 1 ? law.peakRate : undefined;
      }
      return { velocity, pathRate };
    }
  }
}

/** The cruise velocity of a trapezoid covering `d` in exactly `T` at acceleration `a` (a triangle's peak when T is too short for a plateau). */
function trapezoidCruise(d: number, T: number, a: number): number {
  if (d === 0 || T <= 0) return 0;
  const disc = a * a * T * T - 4 * a * d;
  return disc >= 0 ? (a * T - Math.sqrt(disc)) / 2 : (2 * d) / T;
}
