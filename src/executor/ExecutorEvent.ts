import type { ActionRow } from "../ledger/ActionRow.js";
import type { CallClient } from "../ledger/CallClient.js";
import type { HaltRow } from "../ledger/HaltRow.js";
import type { LinkLoss, MotionPace } from "../transport/Transport.js";
import type { ApprovalView, DecidedApprovalView } from "./operator/ApprovalDesk.js";
import type { CallResult } from "./calls/CallResult.js";

/** Who sent the call an event is about; absent when the caller said nothing (a library user). */
interface FromClient {
  readonly client?: CallClient | undefined;
}

/** What the executor reports as calls move along (console, narrative, Live progress). */
export type ExecutorEvent =
  | ({
      readonly type: "queued";
      readonly callId: string;
      readonly tool: string;
      readonly resources: readonly string[];
    } & FromClient)
  | ({
      readonly type: "started";
      readonly callId: string;
      readonly tool: string;
      readonly actionId: string;
      readonly resources: readonly string[];
      readonly budgetMs: number;
    } & FromClient)
  | ({
      readonly type: "timed_out";
      readonly callId: string;
      readonly tool: string;
      readonly actionId: string;
    } & FromClient)
  /** The arm's pace changed while the call waits on its motion: paused (speed scaling 0), resumed, slowed by a slider. */
  | ({
      readonly type: "paced";
      readonly callId: string;
      readonly tool: string;
      readonly actionId: string;
      readonly pace: MotionPace;
    } & FromClient)
  | ({
      readonly type: "settled";
      readonly callId: string;
      readonly tool: string;
      readonly result: CallResult;
      readonly durationMs: number;
    } & FromClient)
  | { readonly type: "action_resolved"; readonly row: ActionRow }
  /** A call holds its locks and waits for an operator's approve / decline; nothing is sent or recorded yet. */
  | ({
      readonly type: "approval_requested";
      readonly callId: string;
      readonly tool: string;
      readonly approval: ApprovalView;
    } & FromClient)
  /** The request ended: approved (the motion goes on), declined, expired or withdrawn (the call is rejected). */
  | ({
      readonly type: "approval_resolved";
      readonly callId: string;
      readonly tool: string;
      readonly approval: DecidedApprovalView;
    } & FromClient)
  /** A halt was sent (the bridge is latched), or the arm answered it: `halt.confirmed` says which; `halt.client` says who asked. */
  | { readonly type: "halted"; readonly halt: HaltRow }
  /** Operator presence (operator_presence.required) was gained, lost or passed to another operator: /v1/state's `presence` says how it stands. */
  | { readonly type: "presence_changed" }
  /** An operator released the latch: motion is accepted again. */
  | { readonly type: "halt_released"; readonly halts: readonly HaltRow[] }
  /**
   * The arm answers again after its link was lost, or came back as a new
   * incarnation (a power loss, a reboot, a restarted controller): what it went
   * through, and the `unknown` actions being looked at again (their
   * settlements follow as `action_resolved`). Nothing is re-sent.
   */
  | {
      readonly type: "link_returned";
      readonly loss: LinkLoss;
      readonly incarnation: string | undefined;
      readonly reobserving: readonly string[];
    };

/** The events about one call (they carry its call id). */
export type CallEvent = Extract<ExecutorEvent, { readonly callId: string }>;

export function isCallEvent(e: ExecutorEvent): e is CallEvent {
  return "callId" in e;
}
