import type { HaltRow } from "../../ledger/HaltRow.js";
import type { MotionCommand, MotionEnd } from "../../transport/Transport.js";
import { poseOf } from "../../transport/poseOf.js";
import { armClock, armTimer, type ArmClock, type ArmTimerEnd } from "./ArmClock.js";
import type { CallResult } from "../calls/CallResult.js";
import { CONTINUE, type MotionCall, type MotionDeps, type StageResult } from "./MotionStage.js";
import { reportPace } from "./reportPace.js";
import { resultFromRow } from "../calls/resultFromRow.js";

/**
 * The intent, durable before a single byte leaves for the arm. Runs in the
 * tick the envelope admitted the motion on the arm's pose: nothing can have
 * moved in between. From here on the motion may be moving the arm: it counts
 * as in flight, and as under way for operator presence (a lapse halts the arm).
 */
export async function intentStage(call: MotionCall, d: MotionDeps): Promise<StageResult> {
  const { tool, callId, args, argsHash, resources, client } = call;
  const admitted = call.admitted!;
  const pose = poseOf(d.transport.latestStatus());
  const command: MotionCommand = { actionId: d.newActionId(), targets: call.plan!.targets, speed: admitted.speed };
  call.command = command;
  d.presence?.motionBegins(command.actionId);
  call.presenceHeld = command.actionId;
  d.arm.inFlight.add({
    actionId: command.actionId,
    from: pose ?? {},
    to: command.targets,
    ...(admitted.peakVelocity ? { peakVelocity: admitted.peakVelocity } : {}),
  });
  call.admittedActionId = command.actionId;
  call.armIncarnation = d.transport.identity?.incarnation();
  // The ledger keeps the pose the motion starts from beside what was sent: an operator judging an
  // unknown later needs "where was it before" as much as "where was it going" (the console draws both),
  // and a later start rebuilds the motion's whole path from it for the envelope (inFlightOfRow).
  const slowed = admitted.slowed;
  const recorded = { ...command, from: pose ?? null, ...(slowed ? { requested_speed: slowed.requested } : {}) };
  call.sentAt = d.now();
  const intent = { actionId: command.actionId, callId, tool: tool.name, args, argsHash, resources, command: recorded };
  await d.ledger.recordIntentDurably(
    { ...intent, armIncarnation: call.armIncarnation, client, approval: call.approval },
    call.sentAt,
  );
  call.sentActionId = command.actionId;
  return CONTINUE;
}

/** A halt that came while the intent was being written: recorded, never sent. */
export function haltAfterIntent(call: MotionCall, d: MotionDeps): StageResult {
  const halt = d.arm.halts.engaged;
  return halt ? notSentForHalt(call.command!, halt, d) : CONTINUE;
}

/** Sends the motion and waits for its end, in the arm's time: a speed slider stretches the budget, a pause stops it. */
export async function sendStage(call: MotionCall, d: MotionDeps): Promise<StageResult> {
  const { tool, callId, resources, client, budgetMs } = call;
  const command = call.command!;
  const log = d.log.child({ action_id: command.actionId, call_id: callId, tool: tool.name });
  call.log = log;
  const slowed = call.admitted!.slowed;
  if (slowed) {
    log.info(
      {
        requested_speed: slowed.requested,
        speed: command.speed,
        tool_mps_requested: slowed.requestedMps,
        tool_mps: slowed.toolMps,
        limit_mps: d.config.limits.maxToolSpeedMps,
      },
      "slowed for limits.max_tool_speed_mps",
    );
  }
  log.info({ targets: command.targets, speed: command.speed, budget_ms: budgetMs, resources }, "motion sent");
  d.emit({ type: "started", callId, tool: tool.name, actionId: command.actionId, resources, budgetMs, client });
  // The budget and the observation after it are counted in the arm's time.
  const clock = armClock(d.transport, Object.keys(command.targets), d.now);
  call.clock = clock;
  call.stopReporting = reportPace(clock, { callId, tool: tool.name, actionId: command.actionId, client }, d.emit, log);
  // A sent motion is followed to its end: the caller going away does not end this wait (motionSignal).
  const { end, waitEnd } = await awaitMotion(command, budgetMs, call.deadline.motionSignal, clock, d);
  call.end = end;
  call.waitEnd = waitEnd;
  return CONTINUE;
}

/** Waits on the motion for `budgetMs` of the arm's time (or a pause of observe.pause_max_ms), or until the run ends. */
async function awaitMotion(
  command: MotionCommand,
  budgetMs: number,
  runSignal: AbortSignal,
  clock: ArmClock,
  d: MotionDeps,
): Promise<{ end: MotionEnd; waitEnd: ArmTimerEnd | undefined }> {
  const wait = new AbortController();
  let waitEnd: ArmTimerEnd | undefined;
  const timer = armTimer(
    clock,
    () => budgetMs,
    d.config.observe.pauseMaxMs,
    (why) => {
      waitEnd = why;
      wait.abort();
    },
  );
  const onRunAbort = (): void => wait.abort();
  runSignal.addEventListener("abort", onRunAbort, { once: true });
  try {
    const end = await d.transport.runMotion(command, wait.signal);
    return { end, waitEnd };
  } finally {
    timer.cancel();
    runSignal.removeEventListener("abort", onRunAbort);
  }
}

/** The intent is durable but a halt came first: nothing was sent, and the row says so (positive evidence: it never left). */
function notSentForHalt(command: MotionCommand, halt: HaltRow, d: MotionDeps): CallResult {
  const reason = `the bridge was halted (${halt.haltId}) before it was sent; nothing left for the arm`;
  d.log.warn(
    { action_id: command.actionId, halt_id: halt.haltId },
    "halt latched while the intent was written: not sent",
  );
  return resultFromRow(
    d.settler.settle(
      command.actionId,
      { kind: "not_moved", reason },
      {
        by: "completion",
        timedOut: false,
        notes: [reason],
        record: { actionId: command.actionId, state: "rejected", moved: false, detail: reason },
      },
    ),
  );
}
