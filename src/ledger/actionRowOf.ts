import type { ActionRowState, ConfirmOutcome } from "../wire/vocabulary.js";
import type { ActionRow, ApprovalRecord, Evidence, SettledBy } from "./ActionRow.js";
import { isClientKind, normalizeClient, type CallClient } from "./CallClient.js";
import { parseRecordedCommand } from "./RecordedCommand.js";

/** A row of the `actions` table as SQLite returns it. */
export interface RawActionRow {
  action_id: string;
  call_id: string;
  tool: string;
  args_json: string;
  args_hash: string;
  resources_json: string;
  command_json: string | null;
  arm_incarnation: string | null;
  state: string;
  timed_out: number;
  settled_by: string | null;
  message: string | null;
  evidence_json: string | null;
  operator: string | null;
  operator_note: string | null;
  created_at: number;
  settled_at: number | null;
  confirmed_at: number | null;
  updated_at: number;
  operator_outcome: string | null;
  observed_pose_json: string | null;
  observed_at: number | null;
  client_kind: string | null;
  client_name: string | null;
  client_session: string | null;
  approval_id: string | null;
  approved_by: string | null;
  approved_at: number | null;
  approval_note: string | null;
}

/** A stored action as the rest of the bridge sees it. */
export function actionRowOf(r: RawActionRow): ActionRow {
  return {
    actionId: r.action_id,
    callId: r.call_id,
    tool: r.tool,
    args: JSON.parse(r.args_json) as unknown,
    argsHash: r.args_hash,
    resources: JSON.parse(r.resources_json) as string[],
    command: r.command_json === null ? undefined : parseRecordedCommand(JSON.parse(r.command_json)),
    armIncarnation: r.arm_incarnation ?? undefined,
    client: storedClientOf(r),
    approval: storedApprovalOf(r),
    state: r.state as ActionRowState,
    timedOut: r.timed_out === 1,
    settledBy: (r.settled_by ?? "none") as SettledBy,
    message: r.message ?? undefined,
    evidence: r.evidence_json === null ? undefined : (JSON.parse(r.evidence_json) as Evidence),
    operator: r.operator ?? undefined,
    operatorNote: r.operator_note ?? undefined,
    operatorOutcome: (r.operator_outcome ?? undefined) as ConfirmOutcome | undefined,
    observed:
      r.observed_pose_json === null
        ? undefined
        : { pose: JSON.parse(r.observed_pose_json) as Record<string, number>, stampMs: r.observed_at ?? 0 },
    createdAt: r.created_at,
    settledAt: r.settled_at ?? undefined,
    confirmedAt: r.confirmed_at ?? undefined,
    updatedAt: r.updated_at,
  };
}

/** A stored client, or undefined for rows without one (and a kind this version does not know, written by a newer one). */
export function storedClientOf(
  r: Pick<RawActionRow, "client_kind" | "client_name" | "client_session">,
): CallClient | undefined {
  if (r.client_kind === null || r.client_name === null || !isClientKind(r.client_kind)) return undefined;
  return normalizeClient({ kind: r.client_kind, name: r.client_name, session: r.client_session ?? undefined });
}

/** A stored approval, or undefined for a motion no one had to approve (and rows written before schema 5). */
function storedApprovalOf(
  r: Pick<RawActionRow, "approval_id" | "approved_by" | "approved_at" | "approval_note">,
): ApprovalRecord | undefined {
  if (r.approval_id === null || r.approved_by === null || r.approved_at === null) return undefined;
  return { approvalId: r.approval_id, operator: r.approved_by, at: r.approved_at, note: r.approval_note ?? undefined };
}
