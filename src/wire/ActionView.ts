import { ACTION_STATES, CONFIRM_OUTCOMES } from "./vocabulary.js";
import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";
import { CALL_RESULT_VIEW } from "./CallResultView.js";
import { CLIENT_VIEW } from "./ClientView.js";

const pose = z.record(z.string(), z.number());

/** A ledger row's state (not the arm's own state of an action, which `evidence.record.state` carries). */
export const ACTION_ROW_STATE = z.enum(ACTION_STATES);

/** One button an operator may press for an unknown action, with what pressing it does, in words shown verbatim. */
export const CONFIRM_OPTION = z.strictObject({
  outcome: z.enum(CONFIRM_OUTCOMES),
  label: z.string(),
  /** Resources the confirmation lifts from quarantine. */
  releases: z.array(z.string()),
  /** The message the model will get, with the pose the arm reports now. */
  model_is_told: z.string(),
  /** What pressing it does, in words for the operator. */
  what_follows: z.string(),
  /** The ledger state the action moves to. */
  state: ACTION_ROW_STATE,
});
export type ConfirmOption = WireOf<typeof CONFIRM_OPTION>;

/** The arm's own record of an action, as the transport reported it. */
export const ARM_ACTION_RECORD = z.strictObject({
  actionId: z.string(),
  state: z.enum(["unknown", "executing", "reached", "grasped", "stopped", "stalled", "rejected", "faulted", "voided"]),
  moved: z.optional(z.boolean()),
  detail: z.optional(z.string()),
});

/** The ledger row as the HTTP API and the console show it (snake_case, like results). */
export const ACTION_VIEW = z.strictObject({
  action_id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  args: z.unknown(),
  resources: z.array(z.string()),
  /** Who sent the call; null for rows recorded before clients were (ledger schema 3) and callers that said nothing. */
  client: z.nullable(CLIENT_VIEW),
  /** What was sent to the arm (absolute targets, speed) and the pose it started from; null when the row has none. */
  /**
   * Who approved the motion, for one the config gates behind an operator's approval (config `approval`):
   * the request's id, the operator, when (epoch ms) and their note. Null when no approval was asked, and
   * on rows recorded before approvals were (ledger schema 5).
   */
  approval: z.nullable(
    z.strictObject({ id: z.string(), operator: z.string(), at: z.number(), note: z.nullable(z.string()) }),
  ),
  command: z.nullable(
    z.object({
      actionId: z.string(),
      targets: pose,
      speed: z.number(),
      from: z.optional(z.nullable(pose)),
      requested_speed: z.optional(z.number()),
    }),
  ),
  state: ACTION_ROW_STATE,
  timed_out: z.boolean(),
  settled_by: z.enum(["completion", "observation", "operator", "none"]),
  /** The model's words (the result's message). */
  message: z.nullable(z.string()),
  /** What happened, in words for the operator and the history (not the model's text). */
  description: z.string(),
  evidence: z.nullable(
    z.strictObject({
      pose: z.nullable(pose),
      pose_stamp_ms: z.nullable(z.number()),
      record: z.nullable(ARM_ACTION_RECORD),
      notes: z.array(z.string()),
    }),
  ),
  operator: z.nullable(z.string()),
  operator_note: z.nullable(z.string()),
  /** The operator's choice (reached / partial / not_moved), once confirmed. */
  operator_outcome: z.nullable(z.enum(CONFIRM_OUTCOMES)),
  /** The pose observed when the operator confirmed, and its status's time (epoch ms). */
  observed_pose: z.nullable(pose),
  observed_at: z.nullable(z.number()),
  created_at: z.number(),
  /** When it was settled (epoch ms): the confirmation for confirmed rows, else the bridge's verdict; null while started. */
  settled_at: z.nullable(z.number()),
  /** When the bridge wrote its own verdict, before any operator's word. */
  verdict_at: z.nullable(z.number()),
  confirmed_at: z.nullable(z.number()),
  updated_at: z.number(),
  /** The result a model would get for this action now (get_action_status). */
  result: CALL_RESULT_VIEW,
  /** Only for an `unknown` action viewed on its own (GET /v1/actions/:id) or in GET /v1/state's pending_unknowns. */
  confirm_options: z.optional(z.array(CONFIRM_OPTION)),
});
export type ActionView = WireOf<typeof ACTION_VIEW>;

/** GET /v1/actions: newest first, a page at a time. */
export const ACTIONS_PAGE = z.strictObject({
  actions: z.array(ACTION_VIEW),
  next_cursor: z.nullable(z.string()),
  /** Kept for clients written against it; next_cursor never skips rows that share a millisecond. */
  next_before: z.nullable(z.number()),
});
export type ActionsPage = WireOf<typeof ACTIONS_PAGE>;
