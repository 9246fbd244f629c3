import type { MotionCommand } from "./Transport.js";

/** The range a transport enforces for one axis before sending anything. */
export interface AxisRange {
  readonly min: number;
  readonly max: number;
}

/**
 * What a transport knows about an axis a motion may name: `undefined` for no
 * such axis; `"device_enforced"` where the far end checks its own limits and
 * refuses out-of-range targets itself (serial firmware NACKs OUT_OF_LIMITS),
 * so the transport must not second-guess it with the config's copy.
 */
export type AxisRangeLookup = (axis: string) => AxisRange | "device_enforced" | undefined;

/**
 * Why a transport must refuse `command` before anything leaves for the arm,
 * or undefined when it may be sent. One rule set for every transport, so a
 * command refused on one path is refused on every other:
 * - `speed` in (0, 1];
 * - at least one target;
 * - every target names a known axis, is a finite number and, where the
 *   transport enforces limits, lies within them.
 */
export function motionProblem(command: MotionCommand, rangeOf: AxisRangeLookup): string | undefined {
  if (!(command.speed > 0 && command.speed <= 1)) return `speed ${command.speed} is not in (0, 1]`;
  const entries = Object.entries(command.targets);
  if (entries.length === 0) return "no targets";
  for (const [axis, value] of entries) {
    const range = rangeOf(axis);
    if (range === undefined) return `unknown axis ${axis}`;
    if (!Number.isFinite(value)) return `target for ${axis} is not a finite number`;
    if (range !== "device_enforced" && (value < range.min || value > range.max)) return `${axis} target ${value} is outside [${range.min}, ${range.max}]`;
  }
  return undefined;
}
