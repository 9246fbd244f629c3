import type { CallResult } from "../calls/CallResult.js";
import {
  blocked,
  blockedByHalt,
  blockedByShutDown,
  blockedForPresence,
  linkDown,
  skipped,
} from "../calls/callResults.js";
import { CONTINUE, type MotionCall, type MotionDeps, type StageResult } from "./MotionStage.js";

/** The halt latch is on: nothing moves until an operator releases it. */
export function haltGate(call: MotionCall, d: MotionDeps): StageResult {
  const halt = d.arm.halts.engaged;
  return halt ? blockedByHalt(call.tool.name, call.resources, halt) : CONTINUE;
}

/** Hold-to-run: no motion while no operator is present. */
export function presenceGate(call: MotionCall, d: MotionDeps): StageResult {
  const absent = d.presence?.missing();
  if (absent === undefined) return CONTINUE;
  d.log.info(
    { call_id: call.callId, tool: call.tool.name, missing: absent },
    "call refused: operator_presence is required and no operator is present; nothing sent",
  );
  return blockedForPresence(call.tool.name, call.resources, absent);
}

/** An action on these joints whose outcome is unknown holds them until an operator confirms it. */
export function quarantineGate(call: MotionCall, d: MotionDeps): StageResult {
  const held = d.arm.quarantine.blocking(call.resources);
  return held.actionIds.length === 0 ? CONTINUE : blocked(call.tool.name, held.resources, held.actionIds);
}

/** No motion is recorded or sent while the arm's link is not connected (nothing could tell what it did). */
export function linkGate(call: MotionCall, d: MotionDeps): StageResult {
  const link = d.transport.linkState();
  if (link.state === "connected") return CONTINUE;
  d.log.info({ tool: call.tool.name, link }, "call failed: the arm's link is not connected; nothing recorded or sent");
  return linkDown(call.tool.name, d.transport.kind, link);
}

/** A servo that shut down answers nothing until an operator recovers it: blocked before any intent. */
export function servoGate(call: MotionCall, d: MotionDeps): StageResult {
  return servosShutDown(call, d, call.plan!.targets) ?? CONTINUE;
}

/** Nothing is queued once the run ended or its deadline passed. */
export function runTimeLeft(call: MotionCall, d: MotionDeps): StageResult {
  const { deadline } = call;
  return deadline.signal.aborted || deadline.at - d.now() <= 0 ? skipped(call.tool.name, deadline.end) : CONTINUE;
}

/**
 * The wait's budget from now: the tool's timeout, bounded by the call's
 * deadline. A wait (the locks, a remote IK answer, an operator) may have used
 * it up, or the run ended meanwhile: nothing is sent then.
 */
export function toolTimeLeft(call: MotionCall, d: MotionDeps): StageResult {
  const { deadline } = call;
  call.budgetMs = Math.min(call.tool.timeoutMs, deadline.at - d.now());
  return call.budgetMs <= 0 || deadline.signal.aborted ? skipped(call.tool.name, deadline.end) : CONTINUE;
}

/** `blocked` when a servo of these axes shut down on a hardware error (servo buses report it; other arms never do). */
export function servosShutDown(
  call: MotionCall,
  d: MotionDeps,
  targets: Readonly<Record<string, number>>,
): CallResult | undefined {
  const down = (d.transport.servos?.health() ?? []).filter((h) => h.shut_down && h.axis in targets);
  if (down.length === 0) return undefined;
  d.log.warn(
    { tool: call.tool.name, servos: down.map((h) => h.servo_id), axes: down.map((h) => h.axis) },
    "motion refused: a servo shut down and awaits an operator's recovery; nothing sent",
  );
  return blockedByShutDown(call.tool.name, call.resources, down);
}
