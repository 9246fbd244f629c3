import type { NackCode, WireActionRecord } from "../src/protocol/serial/index.js";
import type { Actuator } from "../src/config/actuators.js";
import type { FaultPlan } from "./faults.js";
import { drawMotionMs, type MotionTime } from "./motionTime.js";
import { minimumDuration } from "./Trajectory.js";

/** One axis as the device knows it: the arm config's actuator, less the bridge-side tolerance and lock key. */
export type SimAxis = Pick<Actuator, "name" | "kind" | "min" | "max" | "maxVelocity" | "maxAcceleration" | "home">;

export interface MoveRequest {
  readonly actionId: string;
  readonly speed: number;
  readonly durationMs: number;
  readonly targets: readonly { readonly axis: number; readonly position: number }[];
}

/** What the device answers to a MOVE: the action's record, or a refusal. */
export type MoveReply =
  | { readonly kind: "action"; readonly record: WireActionRecord; readonly detail: string }
  | { readonly kind: "nack"; readonly code: NackCode; readonly reason: string };

/** Why the device refuses a MOVE before anything moves; undefined when it takes it. `busyWith` names the action driving an axis. */
export function refusalOf(
  request: MoveRequest,
  axes: readonly SimAxis[],
  busyWith: (axis: number) => string | undefined,
): { code: NackCode; reason: string } | undefined {
  if (request.targets.length === 0) return { code: "BAD_AXIS", reason: "MOVE names no axis" };
  if (!(request.speed > 0 && request.speed <= 1))
    return { code: "BAD_FRAME", reason: `speed ${request.speed} is not in (0, 1]` };
  const seen = new Set<number>();
  for (const t of request.targets) {
    const axis = axes[t.axis];
    if (!axis) return { code: "BAD_AXIS", reason: `axis ${t.axis} does not exist (device has ${axes.length})` };
    if (seen.has(t.axis)) return { code: "BAD_AXIS", reason: `axis ${axis.name} is listed twice` };
    seen.add(t.axis);
    // Limits travel as float32 (HELLO); compare at that precision so a target at the limit is accepted.
    if (t.position < Math.fround(axis.min) || t.position > Math.fround(axis.max)) {
      return {
        code: "OUT_OF_LIMITS",
        reason: `${axis.name} target ${t.position} is outside [${axis.min}, ${axis.max}]`,
      };
    }
  }
  for (const t of request.targets) {
    const busy = busyWith(t.axis);
    if (busy !== undefined) return { code: "BUSY", reason: `${axes[t.axis]?.name} is driven by action ${busy}` };
  }
  return undefined;
}

/**
 * How long a MOVE lasts (ms): an imposed motion time when one is drawn, else
 * the slowest axis's rest-to-rest time at this speed, at least the
 * requested duration.
 */
export function plannedDurationMs(
  request: MoveRequest,
  axes: readonly SimAxis[],
  moves: { readonly axes: readonly number[]; readonly from: readonly number[]; readonly targets: readonly number[] },
  timing: { readonly motionTime: MotionTime; readonly plan: FaultPlan },
): number {
  const imposed = drawMotionMs(timing.motionTime, timing.plan);
  if (imposed !== undefined) return imposed;
  let seconds = 0;
  moves.axes.forEach((i, k) => {
    const axis = axes[i];
    if (!axis) return;
    seconds = Math.max(
      seconds,
      minimumDuration(
        (moves.targets[k] ?? 0) - (moves.from[k] ?? 0),
        axis.maxVelocity * request.speed,
        axis.maxAcceleration,
      ),
    );
  });
  return Math.max(seconds * 1000, request.durationMs);
}

/** A target within its axis's limits. */
export function clampToAxis(axes: readonly SimAxis[], axis: number, position: number): number {
  const a = axes[axis];
  return a ? Math.min(Math.max(position, a.min), a.max) : position;
}
