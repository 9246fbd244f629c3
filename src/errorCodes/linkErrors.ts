import type { ErrorEntry } from "./ErrorEntry.js";

/** The transports: the serial link, the servo bus and its bring-up, ROS 2. */
export const LINK_ERRORS = {
  // transports: the arm is out of reach, retrying later may work
  ARMB_ERR_TRANSPORT_CLOSED: { httpStatus: 503, message: "The {transport} transport is closed" },
  ARMB_ERR_TRANSPORT_NO_STATUS: {
    httpStatus: 503,
    message: "The {transport} transport has no status from the arm yet",
  },
  ARMB_ERR_LINK_OPEN: { httpStatus: 503, message: "Cannot open serial link {link}: {reason}" },
  ARMB_ERR_LINK_LOST: { httpStatus: 503, message: "Serial link {link} was lost: {reason}" },
  ARMB_ERR_LINK_URL: {
    httpStatus: 500,
    message: "Serial link {link} is neither a device path, tcp://HOST:PORT nor rfc2217://HOST:PORT",
  },
  // bring-up (bus scan, set-id, calibrate) is CLI-only; should its errors reach HTTP it is the arm's set-up, not the request
  ARMB_ERR_LINK_BAUD: {
    httpStatus: 500,
    message: "Serial link {link} cannot run at {baud} baud: {reason}",
    docs: "A raw `tcp://` link has no way to set it (the server does); use a device path or `rfc2217://`",
  },
  ARMB_ERR_DEVICE_NACK: { httpStatus: 502, message: "The device refused frame {op} (seq {seq}): {reason}" },
  ARMB_ERR_DEVICE_TIMEOUT: { httpStatus: 504, message: "The device did not answer {op} within {ms} ms" },
  ARMB_ERR_DEVICE_MISMATCH: {
    httpStatus: 502,
    message: "The device reports {detail}, which does not match the arm config",
  },
  ARMB_ERR_DEVICE_REPLACED: {
    httpStatus: 502,
    message:
      "Another device answered on {link} when the link came back: {detail}. It is not driven; the link keeps trying for the arm this bridge was started for (reconnect it), or restart the bridge with a config for this one",
  },
  ARMB_ERR_LINK_DOWN: {
    httpStatus: 503,
    message: "The {transport} link to the arm is {state} ({detail}); nothing was sent",
  },
  ARMB_ERR_ARM_NOT_READY: {
    httpStatus: 409,
    message: "The arm is connected but cannot move: {detail}. {advice}; nothing was sent",
  },
  ARMB_ERR_ARM_SAFETY_STOP: {
    httpStatus: 409,
    message: "The arm stopped on its own safety system: {detail}. {advice}; nothing was sent",
  },
  ARMB_ERR_FRAME_ENCODE: { httpStatus: 500, message: "Cannot encode a {op} frame: {reason}" },
  ARMB_ERR_DEVICE_REBOOTED: {
    httpStatus: 502,
    message: "The device rebooted (boot {from} -> {to}) and lost its memory of actions in flight",
  },
  ARMB_ERR_SERVO_TRIPPED: {
    httpStatus: 409,
    message:
      "Servo {servo} ({joint}) shut down on {errors} and keeps its torque off until an operator has looked at the arm and recovers it (`armbridge recover --joint {joint} --operator NAME`); nothing was sent",
  },
  // bring-up again (see ARMB_ERR_LINK_BAUD)
  ARMB_ERR_BUS_NO_SERVO: {
    httpStatus: 503,
    message: "No {protocol} servo answered on {link} at {bauds} baud{detail}",
    docs: "From `armbridge bus set-id` / `set-baud`: check power and the cable, or scan more bauds (`armbridge bus scan`)",
  },
  ARMB_ERR_BUS_NOT_ALONE: {
    httpStatus: 409,
    message: "{action} needs one servo alone on the bus, but on {link} {found}: unplug the others and run it again",
    docs: "`bus set-id` and `bus set-baud` refuse before writing anything",
  },
  ARMB_ERR_BUS_WRITE: { httpStatus: 502, message: "Servo {id} on {link} did not take {what}: {reason}" },
  ARMB_ERR_BUS_NOT_CALIBRATED: {
    httpStatus: 503,
    message:
      "Arm {arm} on its {protocol} bus is not calibrated ({reason}), so it is not driven: a servo's centre and direction are guesses until measured. Run `armbridge calibrate --config {config} --serial {link}` (docs/bring-up.md)",
    docs: "Raised by `serve` (and anything that starts a bridge) before a single torque write; the simulator passes without a file when its servos are mounted as the config says",
  },
  ARMB_ERR_CALIBRATION_STEP: {
    httpStatus: 409,
    message: "Calibration step {step} cannot go on: {reason}; nothing was written",
  },
  ARMB_ERR_ARM_RECOVERY_UNSUPPORTED: {
    httpStatus: 409,
    message:
      "The {transport} transport has no arm recovery (only a ROS 2 graph has one: franka_hardware's three steps after a reflex)",
  },
  ARMB_ERR_RECOVERY_UNSUPPORTED: {
    httpStatus: 409,
    message: "The {transport} transport has no servo recovery (only servo buses shut servos down on hardware errors)",
  },
  ARMB_ERR_ROS_UNAVAILABLE: {
    httpStatus: 503,
    message:
      "rclnodejs could not be loaded ({reason}). Source a ROS 2 installation (e.g. `source /opt/ros/jazzy/setup.bash`), allow rclnodejs's install script in package.json allowScripts, then run `npm rebuild rclnodejs`",
  },
  ARMB_ERR_ROS_TIMEOUT: { httpStatus: 504, message: "ROS 2 {operation} did not complete within {ms} ms" },
  ARMB_ERR_ROS_GOAL: { httpStatus: 502, message: "ROS 2 goal for {action} failed: {reason}" },
  ARMB_ERR_ROS_CONTROLLER_UNSUITABLE: {
    httpStatus: 500,
    message: "ROS 2 controller {controller} cannot be driven safely: {reason}. Fix: {fix}",
    docs: "Refused at start-up, before any motion: the controller named in the config (or found by its parameters) cannot be stopped by a halt.",
  },
} as const satisfies Readonly<Record<`ARMB_ERR_${string}`, ErrorEntry>>;
