import type { ActionRow } from "../ledger/ActionRow.js";
import type { LinkLoss } from "../transport/Transport.js";
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
  /**
   * The arm answers again after its link was lost, or came back as a new
   * incarnation (a power loss, a reboot, a restarted controller): what it went
   * through, and the `unknown` actions being looked at again (their
   * settlements follow as `action_resolved`). Nothing is re-sent.
   */
  | { readonly type: "link_returned"; readonly loss: LinkLoss; readonly incarnation: string | undefined; readonly reobserving: readonly string[] };
