import { ArmbridgeError, type ErrorCode } from "../../errors.js";
import type { LinkState } from "../../transport/Transport.js";
import type { ServoHealth } from "../../transport/ServoHealth.js";
import type { DecidedApprovalView } from "../operator/ApprovalDesk.js";
import type { ArgIssue } from "../../validation/formatIssues.js";
import type { CallEnd } from "./CallDeadline.js";
import type { CallResult } from "./CallResult.js";
import { whoHalted, type HaltRow } from "../../ledger/HaltRow.js";
import { resultMessages } from "./resultMessages.js";

/** Nothing was recorded or sent: the call itself was wrong. */
export function rejected(tool: string, code: ErrorCode, issues: readonly ArgIssue[]): CallResult {
  return {
    status: "rejected",
    error_code: code,
    issues,
    message: resultMessages.rejected(tool, issues.map((i) => `${i.path}: ${i.message}`).join("; ")),
    timed_out: false,
    settled_by: "none",
  };
}

/**
 * A halt acted on as far as its arguments could be understood: the result
 * says what was wrong with them after what was done (ARMB_ERR_ARGS_INVALID
 * and the issues, as a rejection would have said).
 */
export function actedAround(result: CallResult, issues: readonly ArgIssue[]): CallResult {
  const told = `The call's arguments had problems, acted around (a stop is never refused): ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}.`;
  switch (result.status) {
    case "done":
    case "unknown":
      return { ...result, error_code: "ARMB_ERR_ARGS_INVALID", issues, message: `${result.message} ${told}` };
    case "failed":
    case "stopped":
    case "rejected":
    case "skipped":
    case "blocked":
      return { ...result, message: `${result.message} ${told}` };
  }
}

/**
 * The call ended before anything was sent: its share of the run's time was
 * spent (ARMB_ERR_DEADLINE_SPENT), or its wait was ended — cancelled by its
 * caller, the bridge shutting down — which is said as it was (ARMB_ERR_CALL_ENDED).
 */
export function skipped(tool: string, end: CallEnd = { kind: "deadline" }): CallResult {
  if (end.kind === "deadline")
    return {
      status: "skipped",
      error_code: "ARMB_ERR_DEADLINE_SPENT",
      message: resultMessages.skipped(tool),
      timed_out: false,
      settled_by: "none",
    };
  return {
    status: "skipped",
    error_code: "ARMB_ERR_CALL_ENDED",
    message: resultMessages.ended(tool, end.reason),
    timed_out: false,
    settled_by: "none",
  };
}

/** The link to the arm is not connected: nothing was recorded or sent, and a re-run once it is back is safe. */
export function linkDown(tool: string, transport: string, link: LinkState): CallResult {
  const detail =
    link.detail ?? (link.attempt === undefined ? "no answer from the arm" : `reconnection attempt ${link.attempt}`);
  const e = new ArmbridgeError("ARMB_ERR_LINK_DOWN", { transport, state: link.state, detail });
  return {
    status: "failed",
    error_code: e.code,
    reason: e.message,
    message: resultMessages.failed(tool, undefined, e.message),
    timed_out: false,
    settled_by: "none",
  };
}

/** Resources held by unconfirmed actions: nothing was sent. */
export function blocked(tool: string, resources: readonly string[], actionIds: readonly string[]): CallResult {
  return {
    status: "blocked",
    error_code: "ARMB_ERR_QUARANTINED",
    blocked_by: actionIds,
    resources,
    message: resultMessages.blocked(tool, resources, actionIds),
    timed_out: false,
    settled_by: "none",
  };
}

/** The halt latch is on: nothing was sent; an operator must release it first. */
export function blockedByHalt(tool: string, resources: readonly string[], halt: HaltRow): CallResult {
  const why = `${whoHalted(halt)} halted it at ${new Date(halt.haltedAt).toISOString()}`;
  return {
    status: "blocked",
    error_code: "ARMB_ERR_HALTED",
    blocked_by: [halt.haltId],
    resources,
    message: resultMessages.refusedWhileHalted(tool, halt.haltId, why),
    timed_out: false,
    settled_by: "none",
  };
}

/**
 * A servo of the motion shut down on a hardware error (overload,
 * overheating, …): nothing was recorded or sent, and re-running cannot help
 * until an operator has found the cause and recovered the servo — so
 * `blocked`, never `failed` (which invites a retry). Names each servo, what
 * it shut down on, and the recovery its vendor's servo needs.
 */
export function blockedByShutDown(
  tool: string,
  resources: readonly string[],
  servos: readonly ServoHealth[],
): CallResult {
  const errors = servos.map(
    (h) =>
      new ArmbridgeError("ARMB_ERR_SERVO_TRIPPED", {
        servo: h.servo_id,
        joint: h.axis,
        errors: h.hardware_errors.join(", ").replace(/_/g, " ") || "a hardware error that has since cleared",
      }),
  );
  const advice = [
    ...new Set(
      servos
        .map((h) => h.alerts.find((a) => a.kind === "hardware_error")?.advice)
        .filter((a): a is string => a !== undefined),
    ),
  ];
  return {
    status: "blocked",
    error_code: "ARMB_ERR_SERVO_TRIPPED",
    blocked_by: servos.map((h) => `servo:${h.servo_id}`),
    resources,
    message:
      `${tool} is blocked: ${errors.map((e) => e.message).join("; ")}. ` +
      "Do not retry until the user (the operator) has recovered it; ask them to." +
      (advice.length > 0 ? ` What they need to do: ${advice.join(" ")}` : ""),
    timed_out: false,
    settled_by: "none",
  };
}

/** operator_presence is required and no named operator's console heartbeats: nothing was sent; a re-run once one does is safe. */
export function blockedForPresence(tool: string, resources: readonly string[], missing: string): CallResult {
  const e = new ArmbridgeError("ARMB_ERR_OPERATOR_ABSENT", { tool, missing });
  return {
    status: "blocked",
    error_code: e.code,
    blocked_by: ["operator_presence"],
    resources,
    message: `${e.message}. Do not retry until the user (the operator) is at the console; ask them to.`,
    timed_out: false,
    settled_by: "none",
  };
}

/** An approval request that ended without approval: `rejected`, nothing recorded or sent. */
export function notApproved(tool: string, d: DecidedApprovalView, timeoutMs: number): CallResult {
  const table: Record<DecidedApprovalView["decision"], () => { code: ErrorCode; message: string }> = {
    approved: () => ({
      code: "ARMB_ERR_INTERNAL",
      message: resultMessages.approvalWithdrawn(tool, "it was approved, yet refused"),
    }),
    declined: () => ({
      code: "ARMB_ERR_APPROVAL_DECLINED",
      message:
        d.halt_id === undefined
          ? resultMessages.approvalDeclined(tool, d.operator ?? "?", d.note)
          : resultMessages.approvalDeclinedByHalt(tool, d.halt_id, d.note ?? "the arm was halted"),
    }),
    expired: () => ({ code: "ARMB_ERR_APPROVAL_EXPIRED", message: resultMessages.approvalExpired(tool, timeoutMs) }),
    withdrawn: () => ({
      code: "ARMB_ERR_APPROVAL_WITHDRAWN",
      message: resultMessages.approvalWithdrawn(tool, d.note ?? "the call's wait ended"),
    }),
  };
  const { code, message } = table[d.decision]();
  return {
    status: "rejected",
    error_code: code,
    issues: [{ path: "approval", code: d.decision, message }],
    message,
    timed_out: false,
    settled_by: "none",
  };
}
