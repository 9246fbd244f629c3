import type { ErrorEntry } from "./ErrorEntry.js";

/** The arm's kinematics and safety envelope, its cameras and its intent ledger. */
export const ARM_ERRORS = {
  // kinematics and the safety envelope: a bad URDF is the server's; an unreachable or unsafe target the caller's (inside response.error)
  ARMB_ERR_URDF_INVALID: { httpStatus: 500, message: "URDF {path} cannot be used: {reason}" },
  ARMB_ERR_URDF_MISMATCH: { httpStatus: 500, message: "URDF {path} does not match the arm config: {reason}" },
  ARMB_ERR_TARGET_UNREACHABLE: { httpStatus: 422, message: "{tool}: the target is out of reach: {reason}" },
  // an IK service (MoveIt) that fails or is silent is upstream's fault; start-time kinematics errors are the server's
  ARMB_ERR_IK_SERVICE: {
    httpStatus: 502,
    message: "{tool}: the IK service could not answer: {reason}; nothing was sent",
  },
  ARMB_ERR_ROBOT_DESCRIPTION_MISSING: {
    httpStatus: 500,
    message: "No URDF arrived on {topic} within {ms} ms: {reason}",
  },
  ARMB_ERR_KINEMATICS_UNAVAILABLE: {
    httpStatus: 500,
    message:
      "The config asks for {what}, which only the ROS 2 transport provides; start with the ROS transport or remove it",
  },
  // nothing to place: this arm has no kinematics to place volumes with
  ARMB_ERR_NO_KINEMATICS: {
    httpStatus: 404,
    message:
      "{what} needs the arm's kinematics, and the config has none: name a URDF (arm.urdf, or arm.robot_description on ROS 2) with arm.base_link and arm.tip_link",
    docs: "`GET /v1/arm/volumes` of an arm without a URDF",
  },
  ARMB_ERR_ENVELOPE_VIOLATION: {
    httpStatus: 422,
    message:
      "{tool}: the motion would take {link} to {point}, outside the workspace envelope ({rule}); nothing was sent",
  },
  ARMB_ERR_POSE_UNKNOWN: {
    httpStatus: 503,
    message:
      "{tool}: the arm's current pose is unknown ({reason}), so the path cannot be checked against the envelope; nothing was sent",
  },
  ARMB_ERR_SELF_COLLISION: {
    httpStatus: 422,
    message:
      "{tool}: the motion would bring {link} to {clearance} m from {other} at {point}, a self-collision ({rule}); nothing was sent",
  },
  ARMB_ERR_TOOL_SPEED_LIMIT: {
    httpStatus: 422,
    message:
      "{tool}: the tool would move at up to {speed} m/s, over limits.max_tool_speed_mps {limit}, and {reason}; nothing was sent",
  },
  ARMB_ERR_MOTION_RATE_LIMITED: {
    httpStatus: 429,
    message:
      "{tool}: the bridge has started its limits.motions_per_minute ({limit}) for now; retry in {retryAfterMs} ms; nothing was sent",
  },
  // cameras (docs/cameras.md): a camera that cannot be read is a dependency down; a bad image point the caller's (inside response.error)
  ARMB_ERR_CAMERA_UNAVAILABLE: {
    httpStatus: 503,
    message: "Camera {camera} ({source}) gave no frame: {reason}; nothing was moved",
  },
  ARMB_ERR_CAMERA_FRAME_INVALID: {
    httpStatus: 502,
    message: "Camera {camera} sent something that is not a whole JPEG or PNG image: {reason}",
  },
  ARMB_ERR_CAMERA_STALE: {
    httpStatus: 503,
    message:
      "Camera {camera}'s newest frame is {ageMs} ms old, older than its stale_after_ms ({limitMs} ms): the scene may have changed since, so no motion is taken from it",
  },
  ARMB_ERR_CAMERA_UNKNOWN: {
    httpStatus: 404,
    message: "No camera named {camera}; the configured cameras: {list}",
    docs: "The error's `choices` are the configured cameras' names",
  },
  ARMB_ERR_FRAME_NOT_KEPT: {
    httpStatus: 404,
    message: "No {which} frame of {subject} is kept{camera}: {reason}",
    docs: "GET /v1/actions/:id/frames/:which, GET /v1/approvals/:id/frames/before: the call is older than the newest 32 kept, from before a restart, its camera gave no frame, or it is not taken yet",
  },
  ARMB_ERR_CAMERA_NOT_CALIBRATED: {
    httpStatus: 422,
    message:
      "Camera {camera} has no table calibration (cameras[].table), so an image point cannot be mapped to the table",
  },
  ARMB_ERR_IMAGE_BUDGET: {
    httpStatus: 413,
    message:
      "Camera {camera}'s picture ({bytes} bytes) was not delivered: this response already carries {used} of its {limit} bytes of pictures. Ask for it again in a later turn, or for fewer pictures at once",
  },
  ARMB_ERR_IMAGE_POINT_INVALID: {
    httpStatus: 422,
    message: "{tool}: image point {point} of camera {camera} cannot be mapped to the table: {reason}; nothing was sent",
  },
  // ledger
  ARMB_ERR_LEDGER_OPEN: { httpStatus: 500, message: "Cannot open the intent ledger at {path}: {reason}" },
  ARMB_ERR_LEDGER_CORRUPT: {
    httpStatus: 500,
    message: "The intent ledger at {path} is corrupt: {reason}. It was not modified; move it aside to start a new one",
  },
  ARMB_ERR_LEDGER_FOREIGN: {
    httpStatus: 500,
    message: "{path} is a SQLite database but not an armbridge intent ledger ({reason}); refusing to touch it",
  },
  ARMB_ERR_LEDGER_VERSION: {
    httpStatus: 500,
    message: "The intent ledger at {path} has schema version {found}; this armbridge reads version {expected}",
  },
  ARMB_ERR_LEDGER_LOCKED: {
    httpStatus: 500,
    message:
      "The intent ledger at {path} is in use by {holder}; one bridge per ledger: stop that bridge first, or give this one its own folder with --data",
  },
  ARMB_ERR_LEDGER_OTHER_ARM: {
    httpStatus: 500,
    message:
      "The intent ledger at {path} belongs to arm {recorded}, not to this arm ({current}); its rows are never reconciled against another arm. Give this arm its own folder with --data, or, if it is the same arm (renamed, new firmware), start once with --adopt-ledger",
  },
  // the bridge is up but must not move the arm until restarted on a trustworthy ledger
  ARMB_ERR_LEDGER_LOST: {
    httpStatus: 503,
    message:
      "The intent ledger file {path} was {how} while the bridge was running; no motion is accepted until the bridge is restarted on a ledger it can trust",
  },
  ARMB_ERR_CURSOR_INVALID: {
    httpStatus: 400,
    message:
      "The paging cursor {cursor} is not one this bridge issued: pass next_cursor from the previous page unchanged",
  },
  ARMB_ERR_ACTION_NOT_FOUND: { httpStatus: 404, message: "No action with id {actionId}" },
  ARMB_ERR_ACTION_NOT_UNKNOWN: {
    httpStatus: 409,
    message: "Action {actionId} is {state}, not unknown: there is nothing to confirm",
  },
  ARMB_ERR_OPERATOR_REQUIRED: { httpStatus: 400, message: "Confirming action {actionId} needs an operator name" },
} as const satisfies Readonly<Record<`ARMB_ERR_${string}`, ErrorEntry>>;
