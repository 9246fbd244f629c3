import type { CallResult } from "../../executor/CallResult.js";
import { resultFromRow } from "../../executor/resultFromRow.js";
import type { ActionRow, ActionState, SettledBy } from "../../ledger/ActionRow.js";
import type { ActionRecord } from "../../transport/Transport.js";

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
  readonly message: string | null;
  readonly evidence: {
    readonly pose: Readonly<Record<string, number>> | null;
    readonly pose_stamp_ms: number | null;
    readonly record: ActionRecord | null;
    readonly notes: readonly string[];
  } | null;
  readonly operator: string | null;
  readonly operator_note: string | null;
  readonly created_at: number;
  readonly settled_at: number | null;
  readonly confirmed_at: number | null;
  readonly updated_at: number;
  /** The result a model would get for this action now (get_action_status). */
  readonly result: CallResult;
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
    evidence: e ? { pose: e.pose ?? null, pose_stamp_ms: e.poseStampMs ?? null, record: e.record ?? null, notes: e.notes ?? [] } : null,
    operator: row.operator ?? null,
    operator_note: row.operatorNote ?? null,
    created_at: row.createdAt,
    settled_at: row.settledAt ?? null,
    confirmed_at: row.confirmedAt ?? null,
    updated_at: row.updatedAt,
    result,
  };
}
