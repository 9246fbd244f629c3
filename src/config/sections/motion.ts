import { z } from "zod";
import { positive } from "../schemaPrimitives.js";

/** How motions are judged and bounded: tolerances, per-tool timeouts, observation, staleness and speed limits. */

/** `tolerances:`; also what ROS parameters that override them are checked against (createRos2Node). */
export const tolerancesFile = z
  .object({
    position: positive.default(0.01).describe("|target − observed| at or below this counts as reached (rad)."),
    gripper: positive.default(0.02).describe("The gripper's tolerance on its 0..1 scale."),
    stopped_velocity: positive.default(0.005).describe("|velocity| at or below this counts as stopped (rad/s)."),
  })
  .strict();

const toolTimeout = (ms: number) => positive.default(ms).describe("The tool's deadline when a call gives none.");

const toolTimeouts = z
  .object({
    move_joints: toolTimeout(5000),
    move_to_named_pose: toolTimeout(8000),
    move_to_point: toolTimeout(8000),
    move_to_pose: toolTimeout(8000),
    set_gripper: toolTimeout(3000),
    stop: toolTimeout(1000),
    get_arm_state: toolTimeout(500),
    get_action_status: toolTimeout(500),
    get_camera_image: toolTimeout(3000),
    move_to_image_point: toolTimeout(8000),
  })
  .strict();

const observeFile = z
  .object({
    budget_ms: positive
      .default(1500)
      .describe("How long to keep looking after a timeout when the arm shows no sign of the action."),
    max_ms: positive
      .default(20000)
      .describe("How long to keep looking while the arm reports the action executing: a motion in progress will end."),
    query_interval_ms: positive.default(100).describe("Fallback poll of QUERY_ACTION when the status stream is quiet."),
    pause_max_ms: positive
      .default(120_000)
      .describe(
        "The waits above count the arm's time (its pace); while the arm is paused that time stands still, and a call waits this long in a pause before it ends `unknown`.",
      ),
  })
  .strict();

const limitsFile = z
  .object({
    min_speed: positive
      .max(1)
      .default(0.05)
      .describe(
        "The slowest speed (fraction of each axis's max velocity) a call may ask for: below it a motion is implausibly slow, and a tiny speed becomes 0 as a float32 on the wire.",
      ),
    max_tool_speed_mps: positive
      .optional()
      .describe(
        "The tool frame's largest Cartesian speed along a planned path: faster plans are slowed down, or refused. ISO 10218's reduced speed is 0.25.",
      ),
    motions_per_minute: positive
      .max(100_000)
      .optional()
      .describe("Motions the bridge starts per minute, as a token bucket holding at most this many."),
  })
  .strict();

export const motionSection = {
  tolerances: tolerancesFile.prefault({}),
  timeouts_ms: toolTimeouts.prefault({}).describe("Tool name → its deadline when a call gives none."),
  observe: observeFile.prefault({}).describe("How a call settles by observation after its deadline."),
  stale_after_ms: positive.default(500).describe("A pose older than this is labelled stale and is not used as evidence."),
  limits: limitsFile.prefault({}),
};
