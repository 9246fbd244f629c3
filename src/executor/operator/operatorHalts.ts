import { whoHalted, type HaltRow } from "../../ledger/HaltRow.js";
import type { Logger } from "../../observability/logger.js";
import type { ApprovalDesk } from "./ApprovalDesk.js";
import type { HaltOutcome, HaltRequest } from "../arm/HaltLatch.js";
import type { PresenceLapse } from "./OperatorPresence.js";

/**
 * Declines every pending approval request because of `halt`: each waiting
 * call is answered (rejected, nothing sent) with the halt's id and who
 * halted. The HALT is their operator's word too, even before the arm answers it.
 */
export function declineApprovalsFor(halt: HaltRow, approvals: ApprovalDesk, log: Logger): void {
  if (approvals.pendingCount === 0) return;
  const who = whoHalted(halt);
  const note = `${who} halted the arm at ${new Date(halt.haltedAt).toISOString()} before anyone approved it`;
  const declined = approvals.declineAll({ operator: halt.operator ?? who, note, haltId: halt.haltId });
  log.warn(
    { halt_id: halt.haltId, approvals: declined.map((a) => a.id), calls: declined.map((a) => a.call_id) },
    "the halt declined every pending approval request; nothing of them was sent",
  );
}

/**
 * Presence was lost: with a motion under way (sent, or about to be) the
 * arm is halted and the bridge latched, as by a HALT; with none, nothing
 * moves and the next motion is refused by the gate itself.
 */
export function haltOnPresenceLapse(
  lapse: PresenceLapse,
  d: {
    readonly log: Logger;
    readonly shutdown: AbortSignal;
    readonly halt: (request: HaltRequest) => Promise<HaltOutcome>;
  },
): void {
  if (lapse.motions.length === 0 || d.shutdown.aborted) return;
  const note = `operator_presence: ${lapse.reason}; motions under way: ${lapse.motions.join(", ")}`;
  d.log.error(
    { motions: lapse.motions, operator: lapse.operator, reason: lapse.reason },
    "operator presence lost mid-motion: halting the arm",
  );
  // halt() never rejects; its outcome reaches the console as `halted` events.
  void d.halt({ source: "presence", operator: lapse.operator, note });
}
