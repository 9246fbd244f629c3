import { actuatorsOf } from "../../config/actuators.js";
import type { ActionRecord, ArmActionState } from "../../transport/Transport.js";
import type { Observation, ObserveInput, ObserveVerdict } from "./ToolDefinition.js";

/** How each device-reported action state reads as evidence, before looking at `moved`. */
const RECORD_VERDICT: Readonly<
  Record<ArmActionState, "reached" | "grasped" | "in_progress" | "ended_short" | "not_known">
> = {
  unknown: "not_known",
  executing: "in_progress",
  reached: "reached",
  grasped: "grasped",
  stopped: "ended_short",
  stalled: "ended_short",
  rejected: "ended_short",
  faulted: "ended_short",
  voided: "ended_short",
};

/**
 * The observation path of every motion tool: judge an action by the arm's
 * own record of it first, and by the reported pose second.
 *
 * - The record settles it when the arm keeps one: `reached`; `grasped` (a
 *   gripper that closed on an object) is the close the call asked for, so
 *   `reached` too, with words saying where it stopped; ended short with
 *   `moved: false` (rejected, voided, faulted before moving) is positive
 *   evidence of no effect; ended short after moving is `interrupted`.
 * - Otherwise a fresh pose with every target within tolerance and every
 *   commanded axis still is `reached` — the effect the call asked for is there.
 * - A stale pose is no evidence at all (a frozen status stream looks still).
 */
export function observeTargets(input: ObserveInput): Observation {
  const notes: string[] = [];
  const { record } = input;
  const byRecord = record ? observeRecord(record, notes) : undefined;
  return byRecord ?? observePose(input, notes);
}

/** The arm's own record of the action: an observation when it settles it, else a note for the pose to go on from. */
function observeRecord(record: ActionRecord, notes: string[]): Observation | undefined {
  switch (RECORD_VERDICT[record.state]) {
    case "reached":
      return { verdict: "reached", notes: [`the arm reports action ${record.actionId} reached`] };
    case "grasped": {
      // The call asked the gripper to close, and it did: on an object. A transport's detail starts
      // with the words for the model, up to the first ";" ("closed on an object at width 0.031 m and
      // holds it; …"): only the transport knows whether its gripper goes on pressing.
      const first = record.detail?.split(";")[0]?.trim();
      const where = first?.startsWith("closed on an object")
        ? first
        : "closed on an object, short of the commanded opening";
      return {
        verdict: "reached",
        notes: [`the arm reports action ${record.actionId} grasped${record.detail ? `: ${record.detail}` : ""}`],
        detail: `the gripper ${where}`,
      };
    }
    case "in_progress":
      notes.push(`the arm reports action ${record.actionId} executing`);
      return undefined;
    case "ended_short":
      if (record.moved === false) {
        return {
          verdict: "not_moved",
          notes: [
            `the arm reports action ${record.actionId} ${record.state} without moving${record.detail ? `: ${record.detail}` : ""}`,
          ],
        };
      }
      if (record.moved === true) {
        return {
          verdict: "interrupted",
          notes: [
            `the arm reports action ${record.actionId} ${record.state} after moving${record.detail ? `: ${record.detail}` : ""}`,
          ],
        };
      }
      notes.push(`the arm reports action ${record.actionId} ${record.state} and does not know whether it moved`);
      return undefined;
    case "not_known":
      notes.push(`the arm has no record of action ${record.actionId}`);
      return undefined;
  }
}

/** A fresh pose with every target within tolerance and every commanded axis still is `reached`; a stale one is no evidence. */
function observePose(input: ObserveInput, notes: string[]): Observation {
  const { record, status, command, config } = input;
  if (!status)
    return {
      verdict: record?.state === "executing" ? "in_progress" : "no_evidence",
      notes: [...notes, "no status from the arm yet"],
    };
  const ageMs = input.nowMs - status.stampMs;
  if (ageMs > config.staleAfterMs) {
    return {
      verdict: record?.state === "executing" ? "in_progress" : "no_evidence",
      notes: [...notes, `the arm's pose is stale (${Math.round(ageMs)} ms old)`],
    };
  }

  const tolerance = new Map(actuatorsOf(config).map((a) => [a.name, a.tolerance]));
  let allAtTarget = true;
  let anyMoving = false;
  for (const [axis, target] of Object.entries(command.targets)) {
    // Own properties only: an axis name must never find something on Object.prototype.
    const observed = Object.hasOwn(status.axes, axis) ? status.axes[axis] : undefined;
    if (!observed) {
      allAtTarget = false;
      notes.push(`no reading for ${axis}`);
      continue;
    }
    const tol = tolerance.get(axis) ?? config.tolerances.position;
    if (Math.abs(observed.position - target) > tol) allAtTarget = false;
    if (observed.moving || Math.abs(observed.velocity) > config.tolerances.stoppedVelocity) anyMoving = true;
  }
  let verdict: ObserveVerdict;
  if (allAtTarget && !anyMoving) {
    verdict = "reached";
    notes.push("every commanded axis is within tolerance of its target and still");
  } else if (anyMoving || record?.state === "executing") {
    verdict = "in_progress";
    if (anyMoving) notes.push("commanded axes are moving");
  } else {
    verdict = "no_evidence";
    notes.push("commanded axes are still and not at their targets");
  }
  return { verdict, notes };
}
