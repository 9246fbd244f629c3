import type { ActionRowState } from "../../wire/vocabulary.js";
import type { HaltRow } from "../../ledger/HaltRow.js";

/**
 * What the evidence says about one motion, whoever gathered it (the arm's
 * completion report, an observation after a timeout, start-up reconciliation
 * or a later status). Every settlement goes through one of these, so the
 * ledger state and the words a model reads are derived in one place.
 *
 * - `reached`: the action ran and its target was reached.
 * - `target_holds`: the target pose holds, but this command did not move it
 *   there: `ran: "never"` (the arm voided the id: it never ran and never will)
 *   or `ran: "unknowable"` (the arm restarted since the send: the command can
 *   no longer start, and whether it ran before cannot be told).
 * - `not_moved`: positive evidence that nothing moved.
 * - `interrupted`: it moved, then ended short of its target.
 * - `undetermined`: no conclusive evidence.
 * - `halted`: it moved and ended short of its target because of a halt the
 *   arm confirmed, at the pose the arm reported (`who` halted it).
 */
export type Verdict =
  /** `detail`: how it was reached, when that matters to the model (a gripper closed on an object). */
  | { readonly kind: "reached"; readonly detail?: string }
  | { readonly kind: "target_holds"; readonly ran: "never" | "unknowable" }
  | { readonly kind: "not_moved"; readonly reason: string }
  | { readonly kind: "interrupted"; readonly detail: string }
  | { readonly kind: "undetermined"; readonly why: string }
  | { readonly kind: "halted"; readonly halt: HaltRow };

export type VerdictKind = Verdict["kind"];

/** The ledger state each verdict settles an action in. */
export const STATE_OF_VERDICT: Readonly<
  Record<VerdictKind, Extract<ActionRowState, "done" | "failed" | "unknown" | "halted">>
> = {
  reached: "done",
  target_holds: "done",
  not_moved: "failed",
  interrupted: "unknown",
  undetermined: "unknown",
  halted: "halted",
};
