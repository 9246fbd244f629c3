import { CONFIRM_OUTCOMES } from "../../wire/vocabulary.js";
import type { ActionRow, ArmStatus } from "../../bridge/BridgePort.js";
import {
  CONFIRM_OUTCOME_RULES,
  describeForOperator,
  factsOfRow,
  poseOf,
  resultFromRow,
} from "../../bridge/portVocabulary.js";
import type { ActionView, ConfirmOption } from "../../wire/ActionView.js";

export type { ActionView, ConfirmOption } from "../../wire/ActionView.js";

export function actionView(row: ActionRow): ActionView {
  const e = row.evidence;
  const result = resultFromRow(row);
  return {
    action_id: row.actionId,
    call_id: row.callId,
    tool: row.tool,
    args: row.args,
    resources: row.resources,
    client: row.client ?? null,
    approval: row.approval
      ? {
          id: row.approval.approvalId,
          operator: row.approval.operator,
          at: row.approval.at,
          note: row.approval.note ?? null,
        }
      : null,
    command: row.command ?? null,
    state: row.state,
    timed_out: row.timedOut,
    settled_by: row.settledBy,
    // Derived from the state, like the result: a confirmed row reads as confirmed even if stored before confirmations rewrote it.
    message: result.message,
    description: describeForOperator(row),
    evidence: e
      ? { pose: e.pose ?? null, pose_stamp_ms: e.poseStampMs ?? null, record: e.record ?? null, notes: e.notes ?? [] }
      : null,
    operator: row.operator ?? null,
    operator_note: row.operatorNote ?? null,
    operator_outcome: row.operatorOutcome ?? null,
    observed_pose: row.observed?.pose ?? null,
    observed_at: row.observed?.stampMs ?? null,
    created_at: row.createdAt,
    settled_at: row.confirmedAt ?? row.settledAt ?? null,
    verdict_at: row.settledAt ?? null,
    confirmed_at: row.confirmedAt ?? null,
    updated_at: row.updatedAt,
    result,
  };
}

/** The row's view with its confirm options, when it is unknown; `status` is the arm's latest (the pose a confirmation would record). */
export function actionViewWithOptions(row: ActionRow, status: ArmStatus | undefined): ActionView {
  const view = actionView(row);
  return row.state === "unknown" ? { ...view, confirm_options: confirmOptionsFor(row, status) } : view;
}

export function confirmOptionsFor(row: ActionRow, status: ArmStatus | undefined): ConfirmOption[] {
  const pose = poseOf(status);
  const observed = status && pose ? { pose, stampMs: status.stampMs } : undefined;
  const facts = factsOfRow(row, { operator: undefined, note: undefined, observed });
  return CONFIRM_OUTCOMES.map((outcome) => {
    const rule = CONFIRM_OUTCOME_RULES[outcome];
    return {
      outcome,
      label: rule.label,
      releases: rule.releases(row),
      model_is_told: rule.modelIsTold(facts),
      what_follows: rule.whatFollows(facts),
      state: rule.state,
    };
  });
}
