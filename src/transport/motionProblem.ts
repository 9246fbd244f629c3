import { ArmbridgeError } from "../errors.js";
import type { LinkState, MotionCommand, MotionEnd } from "./Transport.js";
import { FLOAT64_WIRE, type WireNumbers } from "./WireNumbers.js";

/** The range a transport enforces for one axis before sending anything. */
export interface AxisRange {
  readonly min: number;
  readonly max: number;
}

/**
 * What a transport knows about an axis a motion may name: `undefined` for no
 * such axis; `"device_enforced"` where the far end checks its own limits and
 * refuses out-of-range targets itself, so the transport must not second-guess
 * it with a copy of its own.
 */
export type AxisRangeLookup = (axis: string) => AxisRange | "device_enforced" | undefined;

/** One reason a motion cannot be sent, with the path of what is wrong (`plan.targets.elbow`, `plan.speed`). */
export interface MotionIssue {
  readonly path: string;
  readonly code: "empty_plan" | "unknown_axis" | "not_finite" | "outside_limits" | "speed_out_of_range";
  readonly message: string;
}

export interface MotionRules {
  /** How the arm receives numbers; targets and limits are compared as it will see them. Default float64. */
  readonly wire?: WireNumbers | undefined;
  /** The slowest speed accepted (the executor's limits.min_speed); default: anything above 0 that survives the wire. */
  readonly minSpeed?: number | undefined;
}

/**
 * The one rule set a motion passes before anything leaves for the arm —
 * the executor's plan admission and every transport's own last check run
 * this same function, so a command refused on one path is refused on every
 * other:
 * - at least one target; the speed in (0, 1] (from `minSpeed` when given),
 *   and still above 0 as the wire carries it;
 * - every target names a known axis and is a finite number, also as the wire
 *   carries it;
 * - where the transport enforces limits, the target lies within them both as
 *   given and as the wire carries it, compared with the limits carried the
 *   same way (a float32 wire rounds both; a servo rounds both to a count):
 *   what the arm itself would refuse is refused here first.
 */
export function motionIssues(
  motion: { readonly targets: Readonly<Record<string, unknown>>; readonly speed: unknown },
  rangeOf: AxisRangeLookup,
  rules: MotionRules = {},
): MotionIssue[] {
  const wire = rules.wire ?? FLOAT64_WIRE;
  const issues: MotionIssue[] = [];
  const axes = Object.keys(motion.targets);
  if (axes.length === 0) issues.push({ path: "plan.targets", code: "empty_plan", message: "the plan moves no axis" });
  for (const axis of axes) {
    const value = motion.targets[axis];
    const range = rangeOf(axis);
    const path = `plan.targets.${axis}`;
    if (range === undefined) {
      issues.push({ path, code: "unknown_axis", message: `the arm has no axis ${axis}` });
    } else if (typeof value !== "number" || !Number.isFinite(value) || !Number.isFinite(wire.target(axis, value))) {
      issues.push({
        path,
        code: "not_finite",
        message: `target ${String(value)} for ${axis} is not a finite number${typeof value === "number" && Number.isFinite(value) ? ` as ${wire.name}` : ""}`,
      });
    } else if (range !== "device_enforced" && outside(value, range, (v) => wire.target(axis, v))) {
      issues.push({
        path,
        code: "outside_limits",
        message: `${axis} target ${value} is outside [${range.min}, ${range.max}]`,
      });
    }
  }
  const speed = motion.speed;
  const low = rules.minSpeed;
  if (
    typeof speed !== "number" ||
    !Number.isFinite(speed) ||
    speed > 1 ||
    (low === undefined ? !(speed > 0) : speed < low) ||
    !(wire.speed(speed) > 0)
  ) {
    const range = low === undefined ? "(0, 1]" : `[${low}, 1] (limits.min_speed)`;
    issues.push({
      path: "plan.speed",
      code: "speed_out_of_range",
      message: `speed ${String(speed)} is not in ${range}`,
    });
  }
  return issues;
}

function outside(value: number, range: AxisRange, carried: (v: number) => number): boolean {
  return (
    value < range.min || value > range.max || carried(value) < carried(range.min) || carried(value) > carried(range.max)
  );
}

/** The first reason `command` cannot be sent, or undefined. */
export function motionProblem(
  command: MotionCommand,
  rangeOf: AxisRangeLookup,
  rules: MotionRules = {},
): string | undefined {
  return motionIssues(command, rangeOf, rules)[0]?.message;
}

/**
 * A transport's last word before sending: a link that is not `connected` or
 * a command that fails `motionIssues` is `refused` — positive evidence that
 * nothing left for the arm. Undefined: send it.
 */
export function refuseUnsendable(
  command: MotionCommand,
  rangeOf: AxisRangeLookup,
  o: { readonly transport: string; readonly link: LinkState; readonly wire?: WireNumbers | undefined },
): MotionEnd | undefined {
  const { link } = o;
  if (link.state !== "connected") {
    const detail = link.detail ?? (link.attempt === undefined ? "no answer from the arm" : `attempt ${link.attempt}`);
    const error = new ArmbridgeError("ARMB_ERR_LINK_DOWN", { transport: o.transport, state: link.state, detail });
    return { kind: "refused", reason: error.message, error };
  }
  const problem = motionProblem(command, rangeOf, { wire: o.wire });
  if (problem === undefined) return undefined;
  return {
    kind: "refused",
    reason: problem,
    error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId: command.actionId, reason: problem }),
  };
}
