import type { ActionRecord } from "../transport/Transport.js";
import type { CallClient } from "./CallClient.js";
import type { RecordedCommand } from "./RecordedCommand.js";
import type { ActionRowState, ConfirmOutcome } from "../wire/vocabulary.js";

/** The first two words the API took; a contract, kept as aliases. */
export const CONFIRM_OUTCOME_ALIASES = { done: "reached", not_done: "not_moved" } as const satisfies Record<
  string,
  ConfirmOutcome
>;
export type ConfirmOutcomeInput = ConfirmOutcome | keyof typeof CONFIRM_OUTCOME_ALIASES;

export function canonicalOutcome(outcome: ConfirmOutcomeInput): ConfirmOutcome {
  return outcome === "done" || outcome === "not_done" ? CONFIRM_OUTCOME_ALIASES[outcome] : outcome;
}

/** The arm's pose when an operator confirmed: the transport's latest status at that moment. */
export interface ObservedPose {
  readonly pose: Readonly<Record<string, number>>;
  /** Local epoch ms of the status it came from. */
  readonly stampMs: number;
}

/**
 * An operator's approval of a gated motion (config `approval`): the request
 * it answered, who approved, when (local epoch ms) and what they said. Given
 * before the intent was written, so it is recorded with it.
 */
export interface ApprovalRecord {
  readonly approvalId: string;
  readonly operator: string;
  readonly at: number;
  readonly note: string | undefined;
}

/** What ended our uncertainty about an action. */
export type SettledBy = "completion" | "observation" | "operator" | "none";

/** What we saw when we settled: the arm's pose and its own record of the action. */
export interface Evidence {
  /** Axis → observed position at settlement. */
  readonly pose?: Readonly<Record<string, number>> | undefined;
  /** Local epoch ms of the status the pose came from. */
  readonly poseStampMs?: number | undefined;
  readonly record?: ActionRecord | undefined;
  /** Free-form notes on how the verdict was reached, for the operator. */
  readonly notes?: readonly string[] | undefined;
}

export interface ActionRow {
  readonly actionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly args: unknown;
  readonly argsHash: string;
  readonly resources: readonly string[];
  /** What was sent and where the motion started; undefined when the stored command is not one (checked on reading). */
  readonly command: RecordedCommand | undefined;
  /** The arm's incarnation (firmware boot id) when the command was sent. */
  readonly armIncarnation: string | undefined;
  /** Who sent the call (schema 3); undefined for rows written before, and for callers that said nothing. */
  readonly client: CallClient | undefined;
  /** Who approved the motion (schema 5); undefined when no approval was asked, and for rows written before. */
  readonly approval: ApprovalRecord | undefined;
  readonly state: ActionRowState;
  readonly timedOut: boolean;
  readonly settledBy: SettledBy;
  readonly message: string | undefined;
  readonly evidence: Evidence | undefined;
  readonly operator: string | undefined;
  readonly operatorNote: string | undefined;
  /** The operator's choice (canonical word), for rows confirmed since schema 2; derived from the state for older ones. */
  readonly operatorOutcome: ConfirmOutcome | undefined;
  /** The pose observed when the operator confirmed. */
  readonly observed: ObservedPose | undefined;
  readonly createdAt: number;
  readonly settledAt: number | undefined;
  readonly confirmedAt: number | undefined;
  readonly updatedAt: number;
}

/** Whether an action in this state still quarantines its resources. */
export const QUARANTINES: Readonly<Record<ActionRowState, boolean>> = {
  started: false,
  done: false,
  failed: false,
  unknown: true,
  confirmed_done: false,
  confirmed_not_done: false,
  confirmed_partial: false,
  // Stopped by a halt the arm confirmed, at a pose it reported: nothing is in doubt. (The halt's own latch holds every joint.)
  halted: false,
};
