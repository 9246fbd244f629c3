import type { ErrorCode } from "../../errors.js";

/**
 * The one table from error code to HTTP status. Partial on purpose: a code
 * added elsewhere must not break everyone's build mid-work, so a missing one
 * answers 500 — and test/surfaces/http/httpStatusFor.test.ts fails until the
 * new code has its row here.
 */
export const HTTP_STATUS_BY_CODE = {
  // configuration and registry: the server itself is misconfigured
  ARMB_ERR_CONFIG_READ: 500,
  ARMB_ERR_CONFIG_INVALID: 500,
  ARMB_ERR_TOOL_POLICY: 500,
  ARMB_ERR_TOOL_DUPLICATE: 500,
  // the caller's mistakes (in /v1/calls they arrive inside response.error, not as a status)
  ARMB_ERR_TOOL_UNKNOWN: 400,
  ARMB_ERR_ARGS_INVALID: 400,
  ARMB_ERR_CALL_ID_REUSED: 409,
  ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH: 400,
  ARMB_ERR_CALL_ID_INVALID: 400,
  ARMB_ERR_PLAN_REJECTED: 400,
  // execution
  ARMB_ERR_QUARANTINED: 409,
  ARMB_ERR_DEADLINE_SPENT: 504,
  // a call's own result (inside response.output): the wait was ended on purpose, not by the server's fault
  ARMB_ERR_CALL_ENDED: 409,
  ARMB_ERR_MOTION_REFUSED: 409,
  ARMB_ERR_HALTED: 409,
  ARMB_ERR_NOT_HALTED: 409,
  ARMB_ERR_RELEASE_OPERATOR_REQUIRED: 400,
  ARMB_ERR_OPERATOR_ABSENT: 409,
  ARMB_ERR_PRESENCE_NOT_REQUIRED: 404,
  // the console cap: another console may beat once one leaves or lapses
  ARMB_ERR_PRESENCE_CONSOLES_FULL: 429,
  // kinematics: a bad URDF is the server's; an unreachable or unsafe target the caller's (inside response.error)
  ARMB_ERR_URDF_INVALID: 500,
  ARMB_ERR_URDF_MISMATCH: 500,
  ARMB_ERR_TARGET_UNREACHABLE: 422,
  ARMB_ERR_ENVELOPE_VIOLATION: 422,
  ARMB_ERR_SELF_COLLISION: 422,
  ARMB_ERR_TOOL_SPEED_LIMIT: 422,
  ARMB_ERR_MOTION_RATE_LIMITED: 429,
  // an IK service (MoveIt) that fails or is silent is upstream's fault; start-time kinematics errors are the server's
  ARMB_ERR_IK_SERVICE: 502,
  ARMB_ERR_ROBOT_DESCRIPTION_MISSING: 500,
  ARMB_ERR_KINEMATICS_UNAVAILABLE: 500,
  // nothing to place: this arm has no kinematics to place volumes with
  ARMB_ERR_NO_KINEMATICS: 404,
  ARMB_ERR_POSE_UNKNOWN: 503,
  // cameras: a camera that cannot be read is a dependency down; a bad image point the caller's (inside response.error)
  ARMB_ERR_CAMERA_UNAVAILABLE: 503,
  ARMB_ERR_CAMERA_FRAME_INVALID: 502,
  ARMB_ERR_CAMERA_STALE: 503,
  ARMB_ERR_CAMERA_UNKNOWN: 404,
  ARMB_ERR_FRAME_NOT_KEPT: 404,
  ARMB_ERR_CAMERA_NOT_CALIBRATED: 422,
  ARMB_ERR_IMAGE_POINT_INVALID: 422,
  ARMB_ERR_IMAGE_BUDGET: 413,
  // ledger
  ARMB_ERR_LEDGER_OPEN: 500,
  ARMB_ERR_LEDGER_CORRUPT: 500,
  ARMB_ERR_LEDGER_FOREIGN: 500,
  ARMB_ERR_LEDGER_VERSION: 500,
  ARMB_ERR_LEDGER_LOCKED: 500,
  ARMB_ERR_LEDGER_OTHER_ARM: 500,
  // the bridge is up but must not move the arm until restarted on a trustworthy ledger
  ARMB_ERR_LEDGER_LOST: 503,
  ARMB_ERR_CURSOR_INVALID: 400,
  ARMB_ERR_ACTION_NOT_FOUND: 404,
  ARMB_ERR_ACTION_NOT_UNKNOWN: 409,
  ARMB_ERR_OPERATOR_REQUIRED: 400,
  // approval: declined / expired / withdrawn arrive as a call's `rejected` result, not as a status
  ARMB_ERR_APPROVAL_DECLINED: 409,
  ARMB_ERR_APPROVAL_EXPIRED: 504,
  ARMB_ERR_APPROVAL_WITHDRAWN: 503,
  ARMB_ERR_APPROVAL_NOT_FOUND: 404,
  ARMB_ERR_APPROVAL_DECIDED: 409,
  ARMB_ERR_APPROVAL_OPERATOR_REQUIRED: 400,
  ARMB_ERR_APPROVAL_UNANSWERABLE: 409,
  // the arm is out of reach: retrying later may work
  ARMB_ERR_TRANSPORT_CLOSED: 503,
  ARMB_ERR_TRANSPORT_NO_STATUS: 503,
  ARMB_ERR_LINK_OPEN: 503,
  ARMB_ERR_LINK_LOST: 503,
  ARMB_ERR_LINK_URL: 500,
  // bring-up commands (bus scan, set-id, calibrate) are CLI-only; should one reach HTTP it is the arm's set-up, not the request
  ARMB_ERR_LINK_BAUD: 500,
  ARMB_ERR_BUS_NO_SERVO: 503,
  ARMB_ERR_BUS_NOT_ALONE: 409,
  ARMB_ERR_BUS_WRITE: 502,
  ARMB_ERR_BUS_NOT_CALIBRATED: 503,
  ARMB_ERR_CALIBRATION_STEP: 409,
  ARMB_ERR_DEVICE_NACK: 502,
  ARMB_ERR_DEVICE_TIMEOUT: 504,
  ARMB_ERR_DEVICE_MISMATCH: 502,
  ARMB_ERR_DEVICE_REPLACED: 502,
  ARMB_ERR_LINK_DOWN: 503,
  ARMB_ERR_FRAME_ENCODE: 500,
  ARMB_ERR_DEVICE_REBOOTED: 502,
  ARMB_ERR_SERVO_TRIPPED: 409,
  ARMB_ERR_RECOVERY_UNSUPPORTED: 409,
  ARMB_ERR_ROS_UNAVAILABLE: 503,
  ARMB_ERR_ROS_TIMEOUT: 504,
  ARMB_ERR_ROS_GOAL: 502,
  // surfaces
  ARMB_ERR_HTTP_UNAUTHORIZED: 401,
  // a valid credential, but not the operator's: RFC 9110 §15.5.4 403 Forbidden
  ARMB_ERR_HTTP_OPERATOR_ONLY: 403,
  // the connection cap: answered, never dropped, so no client reuses the socket
  ARMB_ERR_HTTP_BUSY: 503,
  ARMB_ERR_HTTP_BAD_REQUEST: 400,
  ARMB_ERR_AXIS_UNKNOWN: 400,
  ARMB_ERR_HTTP_NOT_FOUND: 404,
  ARMB_ERR_HTTP_BODY_TOO_LARGE: 413,
  ARMB_ERR_HTTP_UNREACHABLE: 502,
  // the stream cap: another stream may be admitted once one closes
  ARMB_ERR_HTTP_TOO_MANY_STREAMS: 503,
  // RFC 9110 §15.5.20 421 Misdirected Request: this server will not answer for that authority
  ARMB_ERR_HTTP_HOST_NOT_ALLOWED: 421,
  ARMB_ERR_HTTP_ORIGIN_NOT_ALLOWED: 403,
  ARMB_ERR_HTTP_PORT_IN_USE: 500,
  ARMB_ERR_HTTP_LISTEN: 500,
  ARMB_ERR_HTTP_STARTING: 503,
  // re-attaching to a call id that never ran a motion
  ARMB_ERR_CALL_NOT_FOUND: 404,
  // the client side of attaching: the bridge went away, or is too old for it
  ARMB_ERR_BRIDGE_LOST: 502,
  ARMB_ERR_BRIDGE_INCOMPATIBLE: 502,
  // the session cap: another may be admitted once a call ends
  ARMB_ERR_MCP_TOO_MANY_SESSIONS: 503,
  ARMB_ERR_CLI_USAGE: 400,
  ARMB_ERR_GEMINI_NO_KEY: 500,
  ARMB_ERR_GEMINI_REPLAY: 500,
  ARMB_ERR_GEMINI_API: 502,
  ARMB_ERR_INTERNAL: 500,
} as const satisfies Partial<Record<ErrorCode, number>>;

export function httpStatusFor(code: ErrorCode): number {
  return (HTTP_STATUS_BY_CODE as Partial<Record<ErrorCode, number>>)[code] ?? 500;
}
