import type { CallResult } from "../../executor/CallResult.js";
import { CONFIRM_OUTCOME_RULES, factsOfRow } from "../../executor/confirmOutcomes.js";
import { describeForOperator } from "../../executor/describeForOperator.js";
import { resultFromRow } from "../../executor/resultFromRow.js";
import { CONFIRM_OUTCOMES, type ActionRow, type ActionState, type ConfirmOutcome, type SettledBy } from "../../ledger/ActionRow.js";
import { poseOf } from "../../transport/poseOf.js";
import type { ActionRecord, ArmStatus } from "../../transport/Transport.js";

/** One button an operator may press for an unknown action, with what pressing it does, in words shown verbatim. */
export interface ConfirmOption {
  readonly outcome: ConfirmOutcome;
  readonly label: string;
  /** Resources the confirmation lifts from quarantine. */
  readonly releases: readonly string[];
  /** The message the model will get, with the pose the arm reports now (recorded again at the moment of confirming). */
  readonly model_is_told: string;
  /** What pressing it does, in words for the operator. */
  readonly what_follows: string;
  /** The ledger state the action moves to. */
  readonly state: ActionState;
}

/** The ledger row as the HTTP API and the console show it (snake_case, like results). */
export interface ActionView {
  readonly action_id: string;
  readonly call_id: string;
  readonly tool: string;
  readonly args: unknown;
  readonly resources: readonly string[];
  /** What was sent to the arm: absolute targets and speed. */
  readonly command: unknown;
  readonly state: ActionState;
  readonly timed_out: boolean;
  readonly settled_by: SettledBy;
  /** The model's words (the result's message). */
  readonly message: string | null;
  /** What happened, in words for the operator and the history (not the model's text). */
  readonly description: string;
  readonly evidence: {
    readonly pose: Readonly<Record<string, number>> | null;
    readonly pose_stamp_ms: number | null;
    readonly record: ActionRecord | null;
    readonly notes: readonly string[];
  } | null;
  readonly operator: string | null;
  readonly operator_note: string | null;
  /** The operator's choice (reached / partial / not_moved), once confirmed. */
  readonly operator_outcome: ConfirmOutcome | null;
  /** The pose observed when the operator confirmed, and its status's time (epoch ms). */
  readonly observed_pose: Readonly<Record<string, number>> | null;
  readonly observed_at: number | null;
  readonly created_at: number;
  /**
   * When it was settled (epoch ms), by whom `settled_by` says (an operator's
   * name in `operator`): the confirmation for confirmed rows, else the
   * bridge's verdict (for an unknown row, when it was judged unknown); null while started.
   */
  readonly settled_at: number | null;
  /** When the bridge wrote its own verdict (done / failed / unknown), before any operator's word. */
  readonly verdict_at: number | null;
  readonly confirmed_at: number | null;
  readonly updated_at: number;
  /** The result a model would get for this action now (get_action_status). */
  readonly result: CallResult;
  /** Only for an `unknown` action viewed on its own (GET /v1/actions/:id) or in GET /v1/state's pending_unknowns. */
  readonly confirm_options?: readonly ConfirmOption[];
}

export function actionView(row: ActionRow): ActionView {
  const e = row.evidence;
  const result = resultFromRow(row);
  return {
    action_id: row.actionId,
    call_id: row.callId,
    tool: row.tool,
    args: row.args,
    resources: row.resources,
    command: row.command,
    state: row.state,
    timed_out: row.timedOut,
    settled_by: row.settledBy,
    // Derived from the state, like the result: a confirmed row reads as confirmed even if stored before confirmations rewrote it.
    message: result.message,
    description: describeForOperator(row),
    evidence: e ? { pose: e.pose ?? null, pose_stamp_ms: e.poseStampMs ?? null, record: e.record ?? null, notes: e.notes ?? [] } : null,
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
    return { outcome, label: rule.label, releases: rule.releases(row), model_is_told: rule.modelIsTold(facts), what_follows: rule.whatFollows(facts), state: rule.state };
  });
}
