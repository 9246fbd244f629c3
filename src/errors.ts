/**
 * The one registry of armbridge error codes. Every error the product raises or
 * reports carries one of these codes; tests assert on the code, never on the
 * message text. `test/errors.test.ts` checks that every code is documented in
 * docs/errors.md and that no two entries share a code.
 *
 * Messages are templates: `{name}` is replaced by the detail of that name.
 */
export const ERROR_CODES = {
  // configuration
  ARMB_ERR_CONFIG_READ: "Cannot read config file {path}: {reason}",
  ARMB_ERR_CONFIG_INVALID: "Config {path} is invalid: {issues}",

  // tool registry and call arguments
  ARMB_ERR_TOOL_POLICY: "Tool {tool} cannot be registered: {reason}",
  ARMB_ERR_TOOL_DUPLICATE: "Tool {tool} is already registered",
  ARMB_ERR_TOOL_UNKNOWN: "No tool named {tool}; known tools: {known}",
  ARMB_ERR_ARGS_INVALID: "Arguments for {tool} are invalid: {issues}",
  ARMB_ERR_CALL_ID_REUSED:
    "Call id {callId} was already used for {tool} with different arguments (action {actionId}); use a new id for a new call",
  ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH: "Call id {callId} appears more than once in one batch",
  ARMB_ERR_CALL_ID_INVALID: "The call id cannot be used: {reason}",
  ARMB_ERR_PLAN_REJECTED: "The motion planned for {tool} was refused before anything was sent: {reason}",

  // execution
  ARMB_ERR_QUARANTINED:
    "Resources {resources} are quarantined by unresolved action(s) {actionIds}; an operator must confirm them first",
  ARMB_ERR_DEADLINE_SPENT: "The run deadline was spent before {tool} could start; nothing was sent",
  ARMB_ERR_CALL_ENDED:
    "{tool} ended before it started ({reason}): cancelled by its caller, or the bridge shut down; nothing was sent",
  ARMB_ERR_MOTION_REFUSED: "The arm refused action {actionId}: {reason}",
  ARMB_ERR_HALTED:
    "The bridge is halted ({haltId}, {why}) and refuses every motion until an operator releases the halt (console, `armbridge release --operator NAME`, POST /v1/halt/release); nothing was sent",
  ARMB_ERR_NOT_HALTED: "The bridge is not halted: there is nothing to release",
  ARMB_ERR_RELEASE_OPERATOR_REQUIRED:
    "Releasing the halt needs an operator name: the person at the arm says it is safe to move again",
  ARMB_ERR_OPERATOR_ABSENT:
    "{tool} is refused: operator_presence is required and {missing}; nothing was sent. An operator must open the console, type their name and keep it open while the arm moves",
  ARMB_ERR_PRESENCE_NOT_REQUIRED:
    "This bridge does not use operator presence (operator_presence.required is not set); there is no heartbeat to send",
  ARMB_ERR_PRESENCE_CONSOLES_FULL:
    "{limit} operator consoles already heartbeat on this bridge; close one, or wait {timeoutMs} ms for a closed one to lapse, then open this one again",

  // kinematics and the safety envelope
  ARMB_ERR_URDF_INVALID: "URDF {path} cannot be used: {reason}",
  ARMB_ERR_URDF_MISMATCH: "URDF {path} does not match the arm config: {reason}",
  ARMB_ERR_TARGET_UNREACHABLE: "{tool}: the target is out of reach: {reason}",
  ARMB_ERR_IK_SERVICE: "{tool}: the IK service could not answer: {reason}; nothing was sent",
  ARMB_ERR_ROBOT_DESCRIPTION_MISSING: "No URDF arrived on {topic} within {ms} ms: {reason}",
  ARMB_ERR_KINEMATICS_UNAVAILABLE:
    "The config asks for {what}, which only the ROS 2 transport provides; start with the ROS transport or remove it",
  ARMB_ERR_NO_KINEMATICS:
    "{what} needs the arm's kinematics, and the config has none: name a URDF (arm.urdf, or arm.robot_description on ROS 2) with arm.base_link and arm.tip_link",
  ARMB_ERR_ENVELOPE_VIOLATION:
    "{tool}: the motion would take {link} to {point}, outside the workspace envelope ({rule}); nothing was sent",
  ARMB_ERR_POSE_UNKNOWN:
    "{tool}: the arm's current pose is unknown ({reason}), so the path cannot be checked against the envelope; nothing was sent",
  ARMB_ERR_SELF_COLLISION:
    "{tool}: the motion would bring {link} to {clearance} m from {other} at {point}, a self-collision ({rule}); nothing was sent",
  ARMB_ERR_TOOL_SPEED_LIMIT:
    "{tool}: the tool would move at up to {speed} m/s, over limits.max_tool_speed_mps {limit}, and {reason}; nothing was sent",
  ARMB_ERR_MOTION_RATE_LIMITED:
    "{tool}: the bridge has started its limits.motions_per_minute ({limit}) for now; retry in {retryAfterMs} ms; nothing was sent",

  // cameras (docs/cameras.md)
  ARMB_ERR_CAMERA_UNAVAILABLE: "Camera {camera} ({source}) gave no frame: {reason}; nothing was moved",
  ARMB_ERR_CAMERA_FRAME_INVALID: "Camera {camera} sent something that is not a whole JPEG or PNG image: {reason}",
  ARMB_ERR_CAMERA_STALE:
    "Camera {camera}'s newest frame is {ageMs} ms old, older than its stale_after_ms ({limitMs} ms): the scene may have changed since, so no motion is taken from it",
  ARMB_ERR_CAMERA_UNKNOWN: "No camera named {camera}; the configured cameras: {list}",
  ARMB_ERR_FRAME_NOT_KEPT: "No {which} frame of {subject} is kept{camera}: {reason}",
  ARMB_ERR_CAMERA_NOT_CALIBRATED:
    "Camera {camera} has no table calibration (cameras[].table), so an image point cannot be mapped to the table",
  ARMB_ERR_IMAGE_BUDGET:
    "Camera {camera}'s picture ({bytes} bytes) was not delivered: this response already carries {used} of its {limit} bytes of pictures. Ask for it again in a later turn, or for fewer pictures at once",
  ARMB_ERR_IMAGE_POINT_INVALID:
    "{tool}: image point {point} of camera {camera} cannot be mapped to the table: {reason}; nothing was sent",

  // ledger
  ARMB_ERR_LEDGER_OPEN: "Cannot open the intent ledger at {path}: {reason}",
  ARMB_ERR_LEDGER_CORRUPT:
    "The intent ledger at {path} is corrupt: {reason}. It was not modified; move it aside to start a new one",
  ARMB_ERR_LEDGER_FOREIGN:
    "{path} is a SQLite database but not an armbridge intent ledger ({reason}); refusing to touch it",
  ARMB_ERR_LEDGER_VERSION:
    "The intent ledger at {path} has schema version {found}; this armbridge reads version {expected}",
  ARMB_ERR_LEDGER_LOCKED:
    "The intent ledger at {path} is in use by {holder}; one bridge per ledger: stop that bridge first, or give this one its own folder with --data",
  ARMB_ERR_LEDGER_OTHER_ARM:
    "The intent ledger at {path} belongs to arm {recorded}, not to this arm ({current}); its rows are never reconciled against another arm. Give this arm its own folder with --data, or, if it is the same arm (renamed, new firmware), start once with --adopt-ledger",
  ARMB_ERR_LEDGER_LOST:
    "The intent ledger file {path} was {how} while the bridge was running; no motion is accepted until the bridge is restarted on a ledger it can trust",
  ARMB_ERR_CURSOR_INVALID:
    "The paging cursor {cursor} is not one this bridge issued: pass next_cursor from the previous page unchanged",
  ARMB_ERR_ACTION_NOT_FOUND: "No action with id {actionId}",
  ARMB_ERR_ACTION_NOT_UNKNOWN: "Action {actionId} is {state}, not unknown: there is nothing to confirm",
  ARMB_ERR_OPERATOR_REQUIRED: "Confirming action {actionId} needs an operator name",

  // approval before motion
  ARMB_ERR_APPROVAL_DECLINED: "An operator ({operator}) declined {tool}{note}; nothing was sent",
  ARMB_ERR_APPROVAL_EXPIRED: "No operator approved {tool} within {seconds} s; nothing was sent",
  ARMB_ERR_APPROVAL_WITHDRAWN:
    "The approval request for {tool} was withdrawn before anyone decided ({reason}); nothing was sent",
  ARMB_ERR_APPROVAL_NOT_FOUND:
    "No approval request with id {id} (it may have been decided, expired or withdrawn and forgotten)",
  ARMB_ERR_APPROVAL_DECIDED: "Approval request {id} was already {decision}{by}: there is nothing to decide",
  ARMB_ERR_APPROVAL_OPERATOR_REQUIRED: "Deciding approval request {id} needs an operator name",
  ARMB_ERR_APPROVAL_UNANSWERABLE:
    "The config gates {tools} on an operator's approval, but {why}: no one could approve, so every gated call could only expire. Run the arm under `armbridge serve`, where its console and `armbridge approve` answer, or set approval: {tool}: never",

  // transports
  ARMB_ERR_TRANSPORT_CLOSED: "The {transport} transport is closed",
  ARMB_ERR_TRANSPORT_NO_STATUS: "The {transport} transport has no status from the arm yet",
  ARMB_ERR_LINK_OPEN: "Cannot open serial link {link}: {reason}",
  ARMB_ERR_LINK_LOST: "Serial link {link} was lost: {reason}",
  ARMB_ERR_LINK_URL: "Serial link {link} is neither a device path, tcp://HOST:PORT nor rfc2217://HOST:PORT",
  ARMB_ERR_LINK_BAUD: "Serial link {link} cannot run at {baud} baud: {reason}",
  ARMB_ERR_DEVICE_NACK: "The device refused frame {op} (seq {seq}): {reason}",
  ARMB_ERR_DEVICE_TIMEOUT: "The device did not answer {op} within {ms} ms",
  ARMB_ERR_DEVICE_MISMATCH: "The device reports {detail}, which does not match the arm config",
  ARMB_ERR_DEVICE_REPLACED:
    "Another device answered on {link} when the link came back: {detail}. It is not driven; the link keeps trying for the arm this bridge was started for (reconnect it), or restart the bridge with a config for this one",
  ARMB_ERR_LINK_DOWN: "The {transport} link to the arm is {state} ({detail}); nothing was sent",
  ARMB_ERR_FRAME_ENCODE: "Cannot encode a {op} frame: {reason}",
  ARMB_ERR_DEVICE_REBOOTED: "The device rebooted (boot {from} -> {to}) and lost its memory of actions in flight",
  ARMB_ERR_SERVO_TRIPPED:
    "Servo {servo} ({joint}) shut down on {errors} and keeps its torque off until an operator has looked at the arm and recovers it (`armbridge recover --joint {joint} --operator NAME`); nothing was sent",
  ARMB_ERR_BUS_NO_SERVO: "No {protocol} servo answered on {link} at {bauds} baud{detail}",
  ARMB_ERR_BUS_NOT_ALONE:
    "{action} needs one servo alone on the bus, but on {link} {found}: unplug the others and run it again",
  ARMB_ERR_BUS_WRITE: "Servo {id} on {link} did not take {what}: {reason}",
  ARMB_ERR_BUS_NOT_CALIBRATED:
    "Arm {arm} on its {protocol} bus is not calibrated ({reason}), so it is not driven: a servo's centre and direction are guesses until measured. Run `armbridge calibrate --config {config} --serial {link}` (docs/bring-up.md)",
  ARMB_ERR_CALIBRATION_STEP: "Calibration step {step} cannot go on: {reason}; nothing was written",
  ARMB_ERR_RECOVERY_UNSUPPORTED:
    "The {transport} transport has no servo recovery (only servo buses shut servos down on hardware errors)",
  ARMB_ERR_ROS_UNAVAILABLE:
    "rclnodejs could not be loaded ({reason}). Source a ROS 2 installation (e.g. `source /opt/ros/jazzy/setup.bash`), allow rclnodejs's install script in package.json allowScripts, then run `npm rebuild rclnodejs`",
  ARMB_ERR_ROS_TIMEOUT: "ROS 2 {operation} did not complete within {ms} ms",
  ARMB_ERR_ROS_GOAL: "ROS 2 goal for {action} failed: {reason}",

  // surfaces
  ARMB_ERR_HTTP_UNAUTHORIZED: "Missing or wrong bearer token",
  ARMB_ERR_HTTP_OPERATOR_ONLY:
    "{method} {url} is the operator's: it needs the operator token (the one in the console link serve printed), not the API token an agent or MCP client holds",
  ARMB_ERR_HTTP_BUSY: "The server already holds {limit} connections; retry in a moment on a new connection",
  ARMB_ERR_HTTP_BAD_REQUEST: "Bad request: {issues}",
  ARMB_ERR_AXIS_UNKNOWN: "{where}: no axis named {names}; the arm's axes: {list}",
  ARMB_ERR_HTTP_NOT_FOUND: "No route {method} {url}",
  ARMB_ERR_HTTP_BODY_TOO_LARGE: "Request body is larger than {limit} bytes",
  ARMB_ERR_HTTP_UNREACHABLE: "Cannot reach armbridge at {url}: {reason}. Is `armbridge serve` running there?",
  ARMB_ERR_HTTP_BAD_ANSWER:
    "{method} {path} answered {status} with a body that is not the API's contract ({what}); is the server an armbridge of another version?",
  ARMB_ERR_HTTP_TOO_MANY_STREAMS:
    "{limit} event streams are already open; close one (another console tab?) or raise serve --max-event-streams",
  ARMB_ERR_HTTP_HOST_NOT_ALLOWED:
    "Host {host} is not a name this server answers to (allowed: {allowed}); to reach it by that name, start serve with --allow-host NAME",
  ARMB_ERR_HTTP_ORIGIN_NOT_ALLOWED:
    "Origin {origin} may not call this server: only its own pages (the console) and names given with --allow-host may; other programs send no Origin",
  ARMB_ERR_HTTP_PORT_IN_USE:
    "Cannot listen on {address}: the port is in use (another armbridge?); choose a free one, e.g. --http 127.0.0.1:0 for any free port",
  ARMB_ERR_HTTP_LISTEN: "Cannot listen on {address}: {reason}",
  ARMB_ERR_HTTP_STARTING: "The bridge is still starting (opening the arm link, reconciling the ledger); retry shortly",
  ARMB_ERR_CALL_NOT_FOUND:
    "No motion runs or was recorded under call id {callId}: there is nothing to re-attach to (reads and halts are never recorded; send those again)",
  ARMB_ERR_BRIDGE_LOST:
    "Lost armbridge serve at {url} ({reason}) while waiting for {what}; the calls it took go on there and are in its ledger. Re-attach by sending the same call ids again (or GET /v1/calls/ID)",
  ARMB_ERR_BRIDGE_INCOMPATIBLE: "armbridge serve at {url} cannot take attached clients: {reason}",
  ARMB_ERR_MCP_TOO_MANY_SESSIONS:
    "{limit} MCP sessions are already open on this bridge, each with a call under way; close one, or retry when a call ends",
  ARMB_ERR_CLI_USAGE: "{message}",
  ARMB_ERR_GEMINI_NO_KEY: "GEMINI_API_KEY is not set; set it, or use --model replay:FILE",
  ARMB_ERR_GEMINI_REPLAY: "Replay file {path} is invalid: {reason}",
  ARMB_ERR_GEMINI_API: "The Gemini API call failed: {reason}",
  ARMB_ERR_INTERNAL: "Internal error: {reason}",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type ErrorDetails = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

function render(template: string, details: ErrorDetails): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = details[key];
    if (value === undefined) return whole;
    return Array.isArray(value) ? value.join(", ") : String(value);
  });
}

/**
 * A structured error: the code is the contract, the message is for people.
 * `details` names the joint / tool / action concerned so callers never parse text.
 */
export class ArmbridgeError extends Error {
  override readonly name = "ArmbridgeError";
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(render(ERROR_CODES[code], details), options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails; cause?: string } {
    const cause = this.cause;
    return {
      code: this.code,
      message: this.message,
      details: this.details,
      ...(cause === undefined ? {} : { cause: describeCause(cause) }),
    };
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (typeof cause === "string") return cause;
  try {
    return JSON.stringify(cause) ?? typeof cause;
  } catch {
    return typeof cause;
  }
}

export function isArmbridgeError(value: unknown, code?: ErrorCode): value is ArmbridgeError {
  return value instanceof ArmbridgeError && (code === undefined || value.code === code);
}

/** Wraps anything thrown into an ArmbridgeError, keeping the original as the cause. */
export function asArmbridgeError(value: unknown): ArmbridgeError {
  if (value instanceof ArmbridgeError) return value;
  const reason = value instanceof Error ? value.message : String(value);
  return new ArmbridgeError("ARMB_ERR_INTERNAL", { reason }, { cause: value });
}
