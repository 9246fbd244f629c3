import type { ErrorEntry } from "./ErrorEntry.js";

/** The config and tool registry, a call's arguments, its execution and its approval. */
export const CALL_ERRORS = {
  // configuration and registry: the server itself is misconfigured
  ARMB_ERR_CONFIG_READ: { httpStatus: 500, message: "Cannot read config file {path}: {reason}" },
  ARMB_ERR_CONFIG_INVALID: { httpStatus: 500, message: "Config {path} is invalid: {issues}" },
  // the tool registry: the server's own set-up
  ARMB_ERR_TOOL_POLICY: { httpStatus: 500, message: "Tool {tool} cannot be registered: {reason}" },
  ARMB_ERR_TOOL_DUPLICATE: { httpStatus: 500, message: "Tool {tool} is already registered" },
  // call arguments, the caller's mistakes (in /v1/calls they arrive inside response.error, not as a status)
  ARMB_ERR_TOOL_UNKNOWN: { httpStatus: 400, message: "No tool named {tool}; known tools: {known}" },
  ARMB_ERR_ARGS_INVALID: { httpStatus: 400, message: "Arguments for {tool} are invalid: {issues}" },
  ARMB_ERR_CALL_ID_REUSED: {
    httpStatus: 409,
    message:
      "Call id {callId} was already used for {tool} with different arguments (action {actionId}); use a new id for a new call",
  },
  ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH: {
    httpStatus: 400,
    message: "Call id {callId} appears more than once in one batch",
  },
  ARMB_ERR_CALL_ID_INVALID: { httpStatus: 400, message: "The call id cannot be used: {reason}" },
  ARMB_ERR_PLAN_REJECTED: {
    httpStatus: 400,
    message: "The motion planned for {tool} was refused before anything was sent: {reason}",
  },
  // execution
  ARMB_ERR_QUARANTINED: {
    httpStatus: 409,
    message:
      "Resources {resources} are quarantined by unresolved action(s) {actionIds}; an operator must confirm them first",
  },
  ARMB_ERR_DEADLINE_SPENT: {
    httpStatus: 504,
    message: "The run deadline was spent before {tool} could start; nothing was sent",
  },
  // a call's own result (inside response.output): the wait was ended on purpose, not by the server's fault
  ARMB_ERR_CALL_ENDED: {
    httpStatus: 409,
    message:
      "{tool} ended before it started ({reason}): cancelled by its caller, or the bridge shut down; nothing was sent",
    docs: "`POST /v1/calls/cancel` names the calls it ends, and only those. A call's `skipped` result, not an HTTP status",
  },
  ARMB_ERR_MOTION_REFUSED: { httpStatus: 409, message: "The arm refused action {actionId}: {reason}" },
  ARMB_ERR_HALTED: {
    httpStatus: 409,
    message:
      "The bridge is halted ({haltId}, {why}) and refuses every motion until an operator releases the halt (console, `armbridge release --operator NAME`, POST /v1/halt/release); nothing was sent",
    docs: "A motion call gets `blocked` with this code",
  },
  ARMB_ERR_NOT_HALTED: { httpStatus: 409, message: "The bridge is not halted: there is nothing to release" },
  ARMB_ERR_RELEASE_OPERATOR_REQUIRED: {
    httpStatus: 400,
    message: "Releasing the halt needs an operator name: the person at the arm says it is safe to move again",
  },
  ARMB_ERR_OPERATOR_ABSENT: {
    httpStatus: 409,
    message:
      "{tool} is refused: operator_presence is required and {missing}; nothing was sent. An operator must open the console, type their name and keep it open while the arm moves",
    docs: 'A motion call gets `blocked` with this code (`blocked_by: ["operator_presence"]`); `missing` names what is absent: no console open, a console open without an operator\'s name, or the last heartbeat too long ago',
  },
  ARMB_ERR_PRESENCE_NOT_REQUIRED: {
    httpStatus: 404,
    message:
      "This bridge does not use operator presence (operator_presence.required is not set); there is no heartbeat to send",
    docs: "The answer to `POST /v1/presence`; the console then stops heartbeating",
  },
  // the console cap: another console may beat once one leaves or lapses
  ARMB_ERR_PRESENCE_CONSOLES_FULL: {
    httpStatus: 429,
    message:
      "{limit} operator consoles already heartbeat on this bridge; close one, or wait {timeoutMs} ms for a closed one to lapse, then open this one again",
    docs: "The answer to a heartbeat from a new console; the consoles already counted keep beating",
  },
  // approval before motion: declined / expired / withdrawn arrive as a call's `rejected` result, not as a status
  ARMB_ERR_APPROVAL_DECLINED: {
    httpStatus: 409,
    message: "An operator ({operator}) declined {tool}{note}; nothing was sent",
    docs: "A call's `rejected` result; the status only if ever raised",
  },
  ARMB_ERR_APPROVAL_EXPIRED: {
    httpStatus: 504,
    message: "No operator approved {tool} within {seconds} s; nothing was sent",
    docs: "A call's `rejected` result; the deadline is `approval_timeout_s`; the status only if ever raised",
  },
  ARMB_ERR_APPROVAL_WITHDRAWN: {
    httpStatus: 503,
    message: "The approval request for {tool} was withdrawn before anyone decided ({reason}); nothing was sent",
    docs: "The bridge shut down or the caller went away while the call waited; the status only if ever raised",
  },
  ARMB_ERR_APPROVAL_NOT_FOUND: {
    httpStatus: 404,
    message: "No approval request with id {id} (it may have been decided, expired or withdrawn and forgotten)",
  },
  ARMB_ERR_APPROVAL_DECIDED: {
    httpStatus: 409,
    message: "Approval request {id} was already {decision}{by}: there is nothing to decide",
  },
  ARMB_ERR_APPROVAL_OPERATOR_REQUIRED: {
    httpStatus: 400,
    message: "Deciding approval request {id} needs an operator name",
  },
  ARMB_ERR_APPROVAL_UNANSWERABLE: {
    httpStatus: 409,
    message:
      "The config gates {tools} on an operator's approval, but {why}: no one could approve, so every gated call could only expire. Run the arm under `armbridge serve`, where its console and `armbridge approve` answer, or set approval: {tool}: never",
  },
} as const satisfies Readonly<Record<`ARMB_ERR_${string}`, ErrorEntry>>;
