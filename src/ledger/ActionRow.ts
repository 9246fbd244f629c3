import type { ActionRecord, ArmStatus } from "../transport/Transport.js";

/** Ledger states of an action (see docs/architecture.md for the diagram). */
export const ACTION_STATES = ["started", "done", "failed", "unknown", "confirmed_done", "confirmed_not_done"] as const;
export type ActionState = (typeof ACTION_STATES)[number];

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
  readonly command: unknown;
  /** The arm's incarnation (firmware boot id) when the command was sent. */
  readonly armIncarnation: string | undefined;
  readonly state: ActionState;
  readonly timedOut: boolean;
  readonly settledBy: SettledBy;
  readonly message: string | undefined;
  readonly evidence: Evidence | undefined;
  readonly operator: string | undefined;
  readonly operatorNote: string | undefined;
  readonly createdAt: number;
  readonly settledAt: number | undefined;
  readonly confirmedAt: number | undefined;
  readonly updatedAt: number;
}

/** Whether an action in this state still quarantines its resources. */
export const QUARANTINES: Readonly<Record<ActionState, boolean>> = {
  started: false,
  done: false,
  failed: false,
  unknown: true,
  confirmed_done: false,
  confirmed_not_done: false,
};

export function poseOf(status: ArmStatus | undefined): Record<string, number> | undefined {
  if (!status) return undefined;
  const pose: Record<string, number> = {};
  for (const [name, axis] of Object.entries(status.axes)) pose[name] = axis.position;
  return pose;
}
