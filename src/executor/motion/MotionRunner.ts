import { asArmbridgeError } from "../../errors.js";
import type { CallClient } from "../../ledger/CallClient.js";
import { admitStage, rateStage } from "./admitMotion.js";
import { afterApproval, approvalStage } from "./approveMotion.js";
import type { CallDeadline } from "../calls/CallDeadline.js";
import type { CallResult } from "../calls/CallResult.js";
import { rejected, skipped } from "../calls/callResults.js";
import { LockWaitAborted } from "../arm/JointLockTable.js";
import {
  haltGate,
  linkGate,
  presenceGate,
  quarantineGate,
  runTimeLeft,
  servoGate,
  toolTimeLeft,
} from "./motionGates.js";
import { CONTINUE, runStages, type MotionCall, type MotionDeps, type Stage, type StageResult } from "./MotionStage.js";
import { resultMessages } from "../calls/resultMessages.js";
import { haltAfterIntent, intentStage, sendStage } from "./sendMotion.js";
import { settleStage } from "./settleMotion.js";
import type { MotionTool } from "../toolContract/ToolDefinition.js";

/** Waits its turn on the call's joints (FIFO per joint); a run that ends meanwhile skips the call. */
async function lockStage(call: MotionCall, d: MotionDeps): Promise<StageResult> {
  d.emit({ type: "queued", callId: call.callId, tool: call.tool.name, resources: call.resources, client: call.client });
  try {
    call.lease = await d.arm.locks.acquire(call.resources, call.deadline.signal);
  } catch (error) {
    if (error instanceof LockWaitAborted) return skipped(call.tool.name, call.deadline.end);
    throw error;
  }
  return CONTINUE;
}

/** The tool's plan (a remote IK answer may take time). */
async function planStage(call: MotionCall, d: MotionDeps): Promise<StageResult> {
  call.plan = await call.tool.plan(call.args, d.ctx, call.deadline.signal);
  return CONTINUE;
}

/** A tool's own refusal (an unreachable Cartesian target) speaks first, with its own code. */
function planRefusal(call: MotionCall): StageResult {
  const refusal = call.plan!.refusal;
  return refusal && !refusal.ok ? rejected(call.tool.name, refusal.code, refusal.issues) : CONTINUE;
}

/** What refuses a motion outright: the halt latch, operator presence, quarantined joints. */
const GATES: readonly Stage[] = [haltGate, presenceGate, quarantineGate];

/** What the arm's state now says of the plan: shut-down servos, then the plan, the envelope, tool speed and rate. */
const ADMISSION: readonly Stage[] = [servoGate, admitStage];

/**
 * The motion path of one admitted call, in order. Idempotency and batch
 * checks happened before (CallAdmission); every verdict goes through the one
 * settlement path (ActionSettler). The gates run before the call queues,
 * again once it holds its joints (an action on them may have become unknown
 * meanwhile; the link is looked at from here on), and again after an
 * operator's approval, with admission, on the arm's pose then. From the
 * motion rate's token to the intent's write, the stages run in one tick.
 */
export const MOTION_STAGES: readonly Stage[] = [
  ...GATES,
  runTimeLeft,
  lockStage,
  ...GATES,
  linkGate,
  toolTimeLeft,
  planStage,
  toolTimeLeft,
  planRefusal,
  ...ADMISSION,
  approvalStage(GATES),
  afterApproval([...GATES, ...ADMISSION, linkGate, toolTimeLeft]),
  rateStage,
  // From the intent on, a lapse of presence halts the arm: the last look is in this same tick.
  presenceGate,
  intentStage,
  haltAfterIntent,
  sendStage,
  settleStage,
];

/** Runs motion calls through MOTION_STAGES, and releases what a call held however it ended. */
export class MotionRunner {
  readonly #deps: MotionDeps;

  constructor(deps: MotionDeps) {
    this.#deps = deps;
  }

  async run(
    callId: string,
    tool: MotionTool,
    args: unknown,
    argsHash: string,
    deadline: CallDeadline,
    client: CallClient | undefined,
  ): Promise<CallResult> {
    const d = this.#deps;
    const call = newMotionCall({ callId, tool, args, argsHash, deadline, client });
    let outcome: CallResult | undefined;
    try {
      const answer = await runStages(MOTION_STAGES, call, d);
      if (answer === CONTINUE) throw new Error("the motion stages ended without a result");
      outcome = answer;
      return outcome;
    } catch (error) {
      if (call.sentActionId === undefined) throw error;
      outcome = faultAfterIntent(call.sentActionId, tool.name, call.resources, error, d);
      return outcome;
    } finally {
      release(call, outcome, d);
    }
  }
}

function newMotionCall(asked: {
  callId: string;
  tool: MotionTool;
  args: unknown;
  argsHash: string;
  deadline: CallDeadline;
  client: CallClient | undefined;
}): MotionCall {
  // Every field written out in one literal: one object shape for every call, not a spread grown field by field.
  return {
    callId: asked.callId,
    tool: asked.tool,
    args: asked.args,
    argsHash: asked.argsHash,
    deadline: asked.deadline,
    client: asked.client,
    resources: [...new Set(asked.tool.resources(asked.args))].sort(),
    lease: undefined,
    budgetMs: 0,
    plan: undefined,
    admitted: undefined,
    approval: undefined,
    command: undefined,
    armIncarnation: undefined,
    sentAt: 0,
    admittedActionId: undefined,
    presenceHeld: undefined,
    sentActionId: undefined,
    log: undefined,
    clock: undefined,
    stopReporting: undefined,
    end: undefined,
    waitEnd: undefined,
  };
}

/** What a call held, given back: the pace report and clock, presence, the in-flight entry, the locks. */
function release(call: MotionCall, outcome: CallResult | undefined, d: MotionDeps): void {
  call.stopReporting?.();
  call.clock?.dispose();
  if (call.presenceHeld !== undefined) d.presence?.motionEnds(call.presenceHeld);
  // A motion whose end is unknown may still be moving: it stays in flight until resolved.
  if (call.admittedActionId !== undefined)
    d.arm.inFlight.end(call.admittedActionId, {
      unresolved: outcome === undefined ? call.sentActionId !== undefined : outcome.status === "unknown",
    });
  call.lease?.release();
}

/**
 * An internal fault after the intent was durable (the ledger could not
 * settle it, say): the command may have left, so the outcome is unknown and
 * the resources are held in this process even if the ledger cannot say so.
 */
function faultAfterIntent(
  actionId: string,
  toolName: string,
  resources: readonly string[],
  error: unknown,
  d: MotionDeps,
): CallResult {
  const e = asArmbridgeError(error);
  d.log.error(
    { action_id: actionId, tool: toolName, err: e.toJSON() },
    "internal fault after the intent was recorded; holding its resources",
  );
  d.arm.quarantine.hold(actionId, resources);
  return {
    status: "unknown",
    action_id: actionId,
    resources,
    message: resultMessages.unknown(
      toolName,
      actionId,
      `an internal error after the command may have left (${e.code}: ${e.message})`,
      resources,
    ),
    timed_out: false,
    settled_by: "none",
  };
}
