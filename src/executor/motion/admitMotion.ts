import { actuatorsOf } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import { axisPeaks } from "../../motion/axisPeaks.js";
import { checkMotionEnvelope } from "../../safety/checkMotionEnvelope.js";
import type { InFlightMotion } from "../../safety/InFlightMotions.js";
import { limitToolSpeed } from "../../safety/toolSpeedLimit.js";
import { poseOf } from "../../transport/poseOf.js";
import { admitPlan } from "./admitPlan.js";
import type { CallResult } from "../calls/CallResult.js";
import { rejected } from "../calls/callResults.js";
import {
  CONTINUE,
  type Admitted,
  type MotionCall,
  type MotionDeps,
  type MotionPlanned,
  type StageResult,
} from "./MotionStage.js";

type Pose = ReturnType<typeof poseOf>;

/**
 * Plan admission, the workspace envelope, the tool-speed limit and the
 * motion rate, on the arm's latest pose: a refusal, or the speed to send.
 */
export function admitStage(call: MotionCall, d: MotionDeps): StageResult {
  const plan = call.plan!;
  const refusals = admitPlan({
    tool: call.tool,
    plan,
    config: d.config,
    status: d.transport.latestStatus(),
    wire: d.transport.wire,
  });
  if (refusals.length > 0) {
    d.log.info(
      { call_id: call.callId, tool: call.tool.name, issues: refusals },
      "call rejected: the planned motion was refused",
    );
    return rejected(call.tool.name, "ARMB_ERR_PLAN_REJECTED", refusals);
  }
  // Every motion, whatever tool planned it, passes the workspace envelope before its intent is
  // recorded — together with every motion still in flight on other joints, at any progress of theirs.
  // A motion whose outcome is unknown is in flight until an operator answers: refusals beside it say so, naming it.
  const inFlight = d.arm.inFlight
    .current((id) => stillUnsettled(id, d))
    .map((m) => (awaitsOperator(m.actionId, d) ? { ...m, awaitingOperator: true } : m));
  const pose = poseOf(d.transport.latestStatus());
  const envelope = checkMotionEnvelope(d.config, pose, plan.targets, call.tool.name, inFlight);
  if (!envelope.ok) {
    if (envelope.contact) d.onEnvelopeRefusal({ callId: call.callId, tool: call.tool.name, contact: envelope.contact });
    d.log.info(
      { call_id: call.callId, tool: call.tool.name, code: envelope.code, contact: envelope.contact },
      "call rejected by the safety envelope; nothing sent",
    );
    const result = rejected(call.tool.name, envelope.code, envelope.issues);
    return envelope.contact && result.status === "rejected" ? { ...result, envelope: envelope.contact } : result;
  }
  const admitted = limitSpeed(call, d, plan, pose, inFlight);
  if ("refusal" in admitted) return admitted.refusal;
  const rate = d.motionRate?.check(d.now());
  if (rate && !rate.ok) return rateLimited(call, d, rate.retryAfterMs);
  call.admitted = admitted;
  return CONTINUE;
}

/** The tool-speed limit: the plan's speed, or a lower one that keeps the tool under it and still confirmable in time. */
function limitSpeed(
  call: MotionCall,
  d: MotionDeps,
  plan: MotionPlanned,
  pose: Pose,
  inFlight: readonly InFlightMotion[],
): { readonly refusal: CallResult } | Admitted {
  const tool = call.tool;
  const timing = d.transport.timing?.motionTiming();
  const limited = limitToolSpeed({
    config: d.config,
    pose,
    targets: plan.targets,
    speed: plan.speed,
    inFlight,
    timing,
    transport: d.transport.kind,
    tool: tool.name,
  });
  if (!limited.ok) {
    d.log.info(
      { call_id: call.callId, tool: tool.name, issues: limited.issues },
      "call rejected: limits.max_tool_speed_mps; nothing sent",
    );
    return { refusal: rejected(tool.name, limited.code, limited.issues) };
  }
  const slowed =
    limited.requestedMps !== undefined && limited.toolMps !== undefined
      ? { requested: plan.speed, requestedMps: limited.requestedMps, toolMps: limited.toolMps }
      : undefined;
  if (slowed) {
    // Slower is longer: the slowed motion must still be one whose outcome can be confirmed in time.
    const tooSlow = admitPlan({
      tool,
      plan: { ...plan, speed: limited.speed },
      config: d.config,
      status: d.transport.latestStatus(),
    });
    if (tooSlow.length > 0) {
      const reason = `slowed to speed ${limited.speed.toFixed(3)} to stay under it, ${tooSlow.map((i) => i.message).join("; ")}`;
      const e = new ArmbridgeError("ARMB_ERR_TOOL_SPEED_LIMIT", {
        tool: tool.name,
        speed: slowed.requestedMps.toFixed(3),
        limit: d.config.limits.maxToolSpeedMps ?? "",
        reason,
      });
      return {
        refusal: rejected(tool.name, e.code, [{ path: "plan.speed", code: "tool_speed_limit", message: e.message }]),
      };
    }
  }
  const peakVelocity =
    timing && pose
      ? axisPeaks(timing, plan.targets, pose, limited.speed, new Map(actuatorsOf(d.config).map((a) => [a.name, a])))
          .velocity
      : undefined;
  return { speed: limited.speed, peakVelocity, slowed };
}

/** The motion rate's token, taken once nothing else can refuse the motion, in the tick its intent is recorded. */
export function rateStage(call: MotionCall, d: MotionDeps): StageResult {
  const rate = d.motionRate?.take(d.now());
  return rate && !rate.ok ? rateLimited(call, d, rate.retryAfterMs) : CONTINUE;
}

function rateLimited(call: MotionCall, d: MotionDeps, retryAfterMs: number): CallResult {
  const toolName = call.tool.name;
  const limit = d.motionRate?.perMinute ?? 0;
  const e = new ArmbridgeError("ARMB_ERR_MOTION_RATE_LIMITED", { tool: toolName, limit, retryAfterMs });
  d.log.info(
    { call_id: call.callId, tool: toolName, retry_after_ms: retryAfterMs },
    "call rejected: limits.motions_per_minute; nothing sent",
  );
  const result = rejected(toolName, e.code, [{ path: "(rate)", code: "rate_limited", message: e.message }]);
  return result.status === "rejected" ? { ...result, retry_after_ms: retryAfterMs } : result;
}

/**
 * Whether a motion not known to be over may still be moving the arm: its row
 * is `started` or `unknown`, or this process holds its resources because the
 * ledger could not record its end. A ledger that cannot answer counts as yes.
 */
function stillUnsettled(actionId: string, d: MotionDeps): boolean {
  if (d.arm.quarantine.holds(actionId)) return true;
  try {
    const state = d.ledger.get(actionId)?.state;
    return state === undefined || state === "started" || state === "unknown";
  } catch {
    return true;
  }
}

/** Whether an action's outcome is unknown and waits for an operator's confirmation (it will not end by itself). */
function awaitsOperator(actionId: string, d: MotionDeps): boolean {
  if (d.arm.quarantine.holds(actionId)) return true;
  try {
    return d.ledger.get(actionId)?.state === "unknown";
  } catch {
    return false;
  }
}
