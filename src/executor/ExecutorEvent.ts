import type { ActionRow } from "../ledger/ActionRow.js";
import type { MotionPace } from "../transport/Transport.js";
import type { ApprovalView, DecidedApprovalView } from "./ApprovalDesk.js";
import type { CallResult } from "./CallResult.js";

/** What the executor reports as calls move along (console, narrative, Live progress). */
export type ExecutorEvent =
  | { readonly type: "queued"; readonly callId: string; readonly tool: string; readonly resources: readonly string[] }
  | { readonly type: "started"; readonly callId: string; readonly tool: string; readonly actionId: string; readonly resources: readonly string[]; readonly budgetMs: number }
  | { readonly type: "timed_out"; readonly callId: string; readonly tool: string; readonly actionId: string }
  /** The arm's pace changed while the call waits on its motion: paused (speed scaling 0), resumed, slowed by a slider. */
  | { readonly type: "paced"; readonly callId: string; readonly tool: string; readonly actionId: string; readonly pace: MotionPace }
  | { readonly type: "settled"; readonly callId: string; readonly tool: string; readonly result: CallResult; readonly durationMs: number }
  | { readonly type: "action_resolved"; readonly row: ActionRow }
  /** A call holds its locks and waits for an operator's approve / decline; nothing is sent or recorded yet. */
  | { readonly type: "approval_requested"; readonly callId: string; readonly tool: string; readonly approval: ApprovalView }
  /** The request ended: approved (the motion goes on), declined, expired or withdrawn (the call is rejected). */
  | { readonly type: "approval_resolved"; readonly callId: string; readonly tool: string; readonly approval: DecidedApprovalView };
