import type { ArmConfig } from "../../config/ArmConfig.js";
import type { ApprovalRecord } from "../../ledger/ActionRow.js";
import type { CallClient } from "../../ledger/CallClient.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { EnvelopeContact } from "../../safety/EnvelopeContact.js";
import type { InFlightMotion } from "../../safety/InFlightMotions.js";
import type { MotionRateLimit } from "../../safety/MotionRateLimit.js";
import type { MotionCommand, MotionEnd, Transport } from "../../transport/Transport.js";
import type { ActionSettler } from "./ActionSettler.js";
import type { ApprovalDesk } from "../operator/ApprovalDesk.js";
import type { ArmClock, ArmTimerEnd } from "./ArmClock.js";
import type { ArmState } from "../arm/ArmState.js";
import type { CallDeadline } from "../calls/CallDeadline.js";
import type { CallResult } from "../calls/CallResult.js";
import type { ExecutorEvent } from "../ExecutorEvent.js";
import type { LockLease } from "../arm/JointLockTable.js";
import type { OperatorPresence } from "../operator/OperatorPresence.js";
import type { MotionTool, ReadContext } from "../toolContract/ToolDefinition.js";

/** What the motion path is built with: handed in by the composition root, shared by every call. */
export interface MotionDeps {
  readonly config: ArmConfig;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  /** The arm's own state: locks, quarantine, motions in flight, the halt latch and its log. */
  readonly arm: ArmState;
  readonly approvals: ApprovalDesk;
  readonly settler: ActionSettler;
  readonly ctx: ReadContext;
  readonly log: Logger;
  readonly now: () => number;
  readonly newActionId: () => string;
  readonly emit: (event: ExecutorEvent) => void;
  /** Ends every wait (never a motion) when the bridge shuts down. */
  readonly shutdown: AbortSignal;
  /** limits.motions_per_minute, one bucket for the bridge; undefined when not configured. */
  readonly motionRate: MotionRateLimit | undefined;
  /** Hold-to-run (operator_presence.required); undefined when not configured. */
  readonly presence: OperatorPresence | undefined;
  /** Told of every envelope refusal (GET /v1/state keeps the last one for a 3D view). */
  readonly onEnvelopeRefusal: (refusal: {
    readonly callId: string;
    readonly tool: string;
    readonly contact: EnvelopeContact;
  }) => void;
}

/** What admission lets through: the speed to send (maybe lowered for the tool-speed limit) and what it means per axis. */
export interface Admitted {
  readonly speed: number;
  readonly peakVelocity: InFlightMotion["peakVelocity"];
  /** Set when the tool-speed limit lowered the speed: the plan's own, and the bounds either side (m/s). */
  readonly slowed: { readonly requested: number; readonly requestedMps: number; readonly toolMps: number } | undefined;
}

export type MotionPlanned = Awaited<ReturnType<MotionTool["plan"]>>;

/** One motion call on its way through the stages: what it asked, and what each stage found or holds. */
export interface MotionCall {
  readonly callId: string;
  readonly tool: MotionTool;
  readonly args: unknown;
  readonly argsHash: string;
  readonly deadline: CallDeadline;
  readonly client: CallClient | undefined;
  /** The joints and controllers it moves, sorted: what it locks and what quarantine blocks. */
  readonly resources: readonly string[];
  lease: LockLease | undefined;
  /** The wait's budget: the tool's timeout, bounded by what is left of the call's deadline. */
  budgetMs: number;
  plan: MotionPlanned | undefined;
  admitted: Admitted | undefined;
  /** Who approved, recorded with the intent: the only durable record of the operator's yes. */
  approval: ApprovalRecord | undefined;
  command: MotionCommand | undefined;
  armIncarnation: string | undefined;
  sentAt: number;
  /** Set once the motion passed the envelope and counts as in flight. */
  admittedActionId: string | undefined;
  /** Set while the motion counts as under way for operator presence. */
  presenceHeld: string | undefined;
  /** Set once the intent is durable: from then on the command may have left. */
  sentActionId: string | undefined;
  log: Logger | undefined;
  clock: ArmClock | undefined;
  stopReporting: (() => void) | undefined;
  end: MotionEnd | undefined;
  /** Why our wait ended, when our own budget ended it. */
  waitEnd: ArmTimerEnd | undefined;
}

export const CONTINUE = "continue";

/** A stage's answer: go on to the next stage, or the call's result. */
export type StageResult = typeof CONTINUE | CallResult;

/**
 * One step of the motion path. A stage that has nothing to wait for answers
 * synchronously, so that the stages after it run in the same tick: what the
 * envelope admitted on a pose is what is recorded and sent, with no other
 * call's motion slipping in between.
 */
export type Stage = (call: MotionCall, d: MotionDeps) => StageResult | Promise<StageResult>;

/**
 * Runs `stages` in order until one answers with a result. Synchronous while
 * the stages are: a promise is awaited only where a stage returned one.
 */
export function runStages(
  stages: readonly Stage[],
  call: MotionCall,
  d: MotionDeps,
): StageResult | Promise<StageResult> {
  for (let i = 0; i < stages.length; i++) {
    const answer = stages[i]!(call, d);
    if (answer instanceof Promise) return runRest(answer, stages, i + 1, call, d);
    if (answer !== CONTINUE) return answer;
  }
  return CONTINUE;
}

/**
 * The rest of `stages` once one of them returned a promise: one async loop
 * for the whole call, each later promise awaited in place, rather than a
 * chain of promises nested one per waiting stage (every link of which the
 * call's result would travel back through).
 */
async function runRest(
  pending: Promise<StageResult>,
  stages: readonly Stage[],
  from: number,
  call: MotionCall,
  d: MotionDeps,
): Promise<StageResult> {
  let answer = await pending;
  for (let i = from; answer === CONTINUE && i < stages.length; i++) {
    const next = stages[i]!(call, d);
    answer = next instanceof Promise ? await next : next;
  }
  return answer;
}
