import { ArmbridgeError } from "../../errors.js";
import { canonicalOutcome, type ActionRow } from "../../ledger/ActionRow.js";
import type { Confirmation } from "../../ledger/ActionSettlements.js";
import { CONFIRM_OUTCOME_RULES } from "../../ledger/confirmOutcomes.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import { normaliseOperatorName } from "../../ledger/operatorName.js";
import type { Logger } from "../../observability/logger.js";
import { poseOf } from "../../transport/poseOf.js";
import type { Transport } from "../../transport/Transport.js";
import type { ExecutorEvent } from "../ExecutorEvent.js";
import { messageOf } from "../calls/messageOf.js";
import type { Quarantine } from "../arm/Quarantine.js";

export interface ConfirmDeps {
  readonly ledger: IntentLedger;
  readonly transport: Transport;
  readonly quarantine: Quarantine;
  readonly log: Logger;
  readonly now: () => number;
  readonly emit: (event: ExecutorEvent) => void;
}

/**
 * An operator's word on an unknown action (reached / partial / not_moved,
 * or the older done / not_done): records it with the pose the arm reports
 * at this moment and lifts the quarantine on what the outcome releases
 * (CONFIRM_OUTCOME_RULES).
 */
export function confirmUnknown(actionId: string, confirmation: Confirmation, d: ConfirmDeps): ActionRow {
  const current = d.ledger.get(actionId);
  const outcome = canonicalOutcome(confirmation.outcome);
  const rule = CONFIRM_OUTCOME_RULES[outcome];
  const status = d.transport.latestStatus();
  const pose = poseOf(status);
  const observed = confirmation.observed ?? (status && pose ? { pose, stampMs: status.stampMs } : undefined);
  const operator = normaliseOperatorName(confirmation.operator);
  // Before anything is derived from it: a name of invisible characters is no name.
  if (operator === undefined) throw new ArmbridgeError("ARMB_ERR_OPERATOR_REQUIRED", { actionId });
  // The row's words follow its new state, written together with it (one truth per row).
  const message =
    current &&
    messageOf({
      ...current,
      state: rule.state,
      settledBy: "operator",
      operator,
      operatorNote: confirmation.note,
      operatorOutcome: outcome,
      observed,
    });
  const row = d.ledger.confirm(actionId, { ...confirmation, outcome, observed }, d.now(), message);
  d.quarantine.update(row);
  // Whatever the outcome does not release stays held in this process.
  const kept = row.resources.filter((r) => !rule.releases(row).includes(r));
  if (kept.length > 0) d.quarantine.hold(row.actionId, kept);
  d.log.info(
    { action_id: actionId, outcome, operator, observed_pose: observed?.pose },
    "operator confirmed an unknown action",
  );
  d.emit({ type: "action_resolved", row });
  return row;
}
