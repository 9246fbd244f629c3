import { ArmbridgeError } from "../../errors.js";
import type { LinkState, MotionEnd } from "../Transport.js";
import type { UrArmCondition } from "./UrRobotStatus.js";

export const ARM_NOT_READY = "ARMB_ERR_ARM_NOT_READY";
export const ARM_SAFETY_STOP = "ARMB_ERR_ARM_SAFETY_STOP";

const codeOf = (condition: UrArmCondition): typeof ARM_NOT_READY | typeof ARM_SAFETY_STOP =>
  condition.kind === "safety_stop" ? ARM_SAFETY_STOP : ARM_NOT_READY;

/**
 * The link as the executor and /v1/state see it: a UR that answers but cannot
 * move stays `connected` (its JointStates and servers are fine) and says why
 * in `detail`, with ARMB_ERR_ARM_NOT_READY (or ARMB_ERR_ARM_SAFETY_STOP, which
 * the executor latches as a HALT) in `error_code`.
 */
export function linkWithCondition(link: LinkState, condition: UrArmCondition | undefined): LinkState {
  if (!condition || link.state !== "connected") return link;
  return { ...link, error_code: codeOf(condition), detail: `${condition.detail}. ${condition.advice}` };
}

/** A motion asked for while the arm cannot move: refused before any goal leaves, so nothing moved. */
export function refuseForCondition(condition: UrArmCondition): MotionEnd {
  const error = new ArmbridgeError(codeOf(condition), { detail: condition.detail, advice: condition.advice });
  return { kind: "refused", reason: error.message, error };
}

/**
 * A motion that ended while the arm could not move ended because of that (a
 * safety stop that cancelled it, the controller_stopper deactivating its
 * controller): its record says so, with what a person does about it, beside
 * the controller's own words.
 */
export function endWithCondition(end: MotionEnd, condition: UrArmCondition | undefined): MotionEnd {
  if (!condition) return end;
  if (end.kind === "refused") {
    // A goal JTC rejected because the controller_stopper had just deactivated it: the cause and its fix, not "rejected".
    const error = new ArmbridgeError(
      codeOf(condition),
      { detail: `${condition.detail} (the controller said: ${end.reason})`, advice: condition.advice },
      { cause: end.error },
    );
    return { kind: "refused", reason: error.message, error };
  }
  if (end.kind !== "ended" || end.record.state === "reached") return end;
  const cause = `${condition.detail}. ${condition.advice}`;
  const detail = end.record.detail ? `${cause} (the controller said: ${end.record.detail})` : cause;
  return { kind: "ended", record: { ...end.record, detail } };
}
