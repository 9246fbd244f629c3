import type { ActionRow } from "../../ledger/ActionRow.js";
import type { ActionRowState } from "../../wire/vocabulary.js";
import type { CallResult } from "./CallResult.js";
import { CONFIRM_OUTCOME_RULES, factsOfRow } from "../../ledger/confirmOutcomes.js";
import { resultMessages } from "./resultMessages.js";

/**
 * A motion's result, derived from its ledger row: the row is the one truth,
 * so a replayed call id, `get_action_status` and the HTTP view can never
 * disagree with what was recorded (including an operator's later word).
 */
export function resultFromRow(row: ActionRow): CallResult {
  // A confirmed row's pose is the one observed when the operator confirmed.
  const pose = row.observed?.pose ?? row.evidence?.pose;
  const base = { action_id: row.actionId, timed_out: row.timedOut, ...(pose ? { pose } : {}) };
  const table: Record<ActionRowState, () => CallResult> = {
    started: () => ({
      ...base,
      status: "unknown",
      resources: row.resources,
      settled_by: "none",
      message: resultMessages.unknown(row.tool, row.actionId, "it has not settled yet", row.resources),
    }),
    done: () => ({
      ...base,
      status: "done",
      settled_by: row.settledBy,
      message: row.message ?? resultMessages.done(row.tool, row.actionId, "completion", row.timedOut),
    }),
    confirmed_done: () => ({
      ...base,
      status: "done",
      settled_by: "operator",
      message: CONFIRM_OUTCOME_RULES.reached.modelIsTold(factsOfRow(row)),
    }),
    failed: () => ({
      ...base,
      status: "failed",
      settled_by: row.settledBy,
      reason: row.evidence?.notes?.join("; ") || "the arm reports no motion",
      message: row.message ?? resultMessages.failed(row.tool, row.actionId, "the arm reports no motion"),
    }),
    confirmed_not_done: () => ({
      ...base,
      status: "failed",
      settled_by: "operator",
      reason: `an operator (${row.operator ?? "?"}) confirmed the arm did not move`,
      message: CONFIRM_OUTCOME_RULES.not_moved.modelIsTold(factsOfRow(row)),
    }),
    confirmed_partial: () => ({
      ...base,
      status: "stopped",
      settled_by: "operator",
      reason: `an operator (${row.operator ?? "?"}) confirmed the arm stopped part-way`,
      message: CONFIRM_OUTCOME_RULES.partial.modelIsTold(factsOfRow(row)),
    }),
    halted: () => ({
      ...base,
      status: "stopped",
      settled_by: row.settledBy,
      reason: row.evidence?.notes?.at(-1) ?? "a halt stopped it part-way",
      message: row.message ?? resultMessages.stoppedByHalt(row.tool, row.actionId, "a halt", pose),
    }),
    unknown: () => ({
      ...base,
      status: "unknown",
      resources: row.resources,
      settled_by: "none",
      message: row.message ?? resultMessages.unknown(row.tool, row.actionId, "no conclusive evidence", row.resources),
    }),
  };
  return table[row.state]();
}
