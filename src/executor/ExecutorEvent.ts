import type { ActionRow } from "../ledger/ActionRow.js";
import type { HaltRow } from "../ledger/HaltRow.js";
import type { ApprovalView, DecidedApprovalView } from "./ApprovalDesk.js";
import type { CallResult } from "./CallResult.js";

/** What the executor reports as calls move along (console, narrative, Live progress). */
export type ExecutorEvent =
  | { readonly type: "queued"; readonly callId: string; readonly tool: string; readonly resources: readonly string[] }
  | { readonly type: "started"; readonly callId: string; readonly tool: string; readonly actionId: string; readonly resources: readonly string[]; readonly budgetMs: number }
  | { readonly type: "timed_out"; readonly callId: string; readonly tool: string; readonly actionId: string }
  | { readonly type: "settled"; readonly callId: string; readonly tool: string; readonly result: CallResult; readonly durationMs: number }
  | { readonly type: "action_resolved"; readonly row: ActionRow }
  /** A call holds its locks and waits for an operator's approve / decline; nothing is sent or recorded yet. */
  | { readonly type: "approval_requested"; readonly callId: string; readonly tool: string; readonly approval: ApprovalView }
  /** The request ended: approved (the motion goes on), declined, expired or withdrawn (the call is rejected). */
  | { readonly type: "approval_resolved"; readonly callId: string; readonly tool: string; readonly approval: DecidedApprovalView }
  /** A halt was sent (the bridge is latched), or the arm answered it: `halt.confirmed` says which. */
  | { readonly type: "halted"; readonly halt: HaltRow }
  /** An operator released the latch: motion is accepted again. */
  | { readonly type: "halt_released"; readonly halts: readonly HaltRow[] };

/** The events about one call (they carry its call id). */
export type CallEvent = Extract<ExecutorEvent, { readonly callId: string }>;

export function isCallEvent(e: ExecutorEvent): e is CallEvent {
  return "callId" in e;
}
