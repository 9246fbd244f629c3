import { approvalNeeded } from "../operator/approvalRules.js";
import type { DecidedApprovalView } from "../operator/ApprovalDesk.js";
import type { CallResult } from "../calls/CallResult.js";
import { notApproved } from "../calls/callResults.js";
import { CONTINUE, runStages, type MotionCall, type MotionDeps, type Stage, type StageResult } from "./MotionStage.js";

/**
 * An operator's approval, when the config asks for it: waited for here,
 * holding the locks, before anything is recorded or sent. The wait stops the
 * call's deadline clock. `before` runs first: a halt that came while it
 * planned opens no request (a halt declines every open one).
 */
export function approvalStage(before: readonly Stage[]): Stage {
  return function approval(call: MotionCall, d: MotionDeps): StageResult | Promise<StageResult> {
    const why = approvalNeeded(d.config.approval[call.tool.name], call.plan!.targets);
    if (why === undefined) return CONTINUE;
    const refused = runStages(before, call, d);
    if (refused !== CONTINUE) return refused;
    return awaitApproval(call, d, why);
  };
}

async function awaitApproval(call: MotionCall, d: MotionDeps, why: string): Promise<StageResult> {
  const { callId, tool, args, resources, client, deadline } = call;
  const targets = call.plan!.targets;
  const request = { callId, tool: tool.name, args, resources, targets, why, client };
  d.log.info({ call_id: callId, tool: tool.name, targets, why }, "waiting for an operator's approval; nothing sent");
  const decided = await deadline.paused(() => d.approvals.request(request, deadline.runSignal));
  if (decided.decision !== "approved") return notApprovedResult(tool.name, decided, d);
  d.log.info(
    { call_id: callId, tool: tool.name, approval: decided.id, operator: decided.operator },
    "approved by an operator",
  );
  call.approval = {
    approvalId: decided.id,
    operator: decided.operator ?? "",
    at: decided.decided_at,
    note: decided.note ?? undefined,
  };
  return CONTINUE;
}

/**
 * The world may have moved on while the operator looked: after an approval,
 * `stages` run again on the arm's pose now; without one they ran a moment ago.
 */
export function afterApproval(stages: readonly Stage[]): Stage {
  return function recheck(call: MotionCall, d: MotionDeps): StageResult | Promise<StageResult> {
    return call.approval === undefined ? CONTINUE : runStages(stages, call, d);
  };
}

/** Declined, expired or withdrawn: `rejected`, nothing recorded or sent, in words that say what happened. */
function notApprovedResult(toolName: string, decided: DecidedApprovalView, d: MotionDeps): CallResult {
  d.log.info(
    {
      call_id: decided.call_id,
      tool: toolName,
      approval: decided.id,
      decision: decided.decision,
      operator: decided.operator,
    },
    "not approved; nothing sent",
  );
  return notApproved(toolName, decided, d.approvals.timeoutMs);
}
