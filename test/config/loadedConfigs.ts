import { readdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";

/**
 * Every arm config the bridge ships, plus inline configs that between them
 * set every key of the schema (the shipped files leave many at their
 * defaults), each loaded and turned into plain JSON with the package root
 * replaced by `<root>` so the result does not depend on where the tree is.
 */
const CONFIG_DIR = join(packageRoot(), "config");

const SIM_ARM_KEYS = {
  arm: {
    name: "every_key",
    joints: [
      {
        name: "j1",
        min: -1,
        max: 1,
        max_velocity: 1,
        max_acceleration: 2,
        home: 0,
        servo: { id: 1, model: "sts3215", counts_per_rev: 4096, center: 2048, sign: -1, range_min: 0, range_max: 4095 },
      },
      { name: "j2", min: -2, max: 2, max_velocity: 1.5, max_acceleration: 3, servo: { id: 2 } },
    ],
    gripper: {
      name: "grip",
      max_velocity: 0.5,
      max_acceleration: 2,
      home: 0.5,
      servo: { id: 3, counts_per_rev: 4096, closed: 1000, open: 3000, torque_limit: 500 },
    },
    named_poses: { ready: { j1: 0.5, j2: -0.5 } },
    controllers: [{ name: "arm_controller", joints: ["j1", "j2"] }],
    urdf: "urdf/sim-arm.urdf",
    base_link: "base_link",
    tip_link: "tool0",
  },
  bus: { protocol: "feetech_sts", baud: 500000 },
  tolerances: { position: 0.02, gripper: 0.03, stopped_velocity: 0.004 },
  timeouts_ms: {
    move_joints: 1,
    move_to_named_pose: 2,
    move_to_point: 3,
    move_to_pose: 4,
    set_gripper: 5,
    stop: 6,
    get_arm_state: 7,
    get_action_status: 8,
    get_camera_image: 9,
    move_to_image_point: 10,
  },
  observe: { budget_ms: 11, max_ms: 12, query_interval_ms: 13, pause_max_ms: 14 },
  stale_after_ms: 15,
  approval: { move_joints: "always", set_gripper: { joints: ["grip"] }, stop: "never" },
  approval_timeout_s: 42,
  operator_presence: { required: true, timeout_ms: 3000 },
  limits: { min_speed: 0.1, max_tool_speed_mps: 0.25, motions_per_minute: 30 },
  cameras: [
    {
      name: "overhead",
      source: "sim",
      stale_after_ms: 1000,
      attach_to_results: true,
      sim: { position: [0.4, 0.1, 0.9], yaw_deg: 90, fov_deg: 50, width: 320, height: 240, format: "png", jpeg_quality: 80 },
      table: {
        z: 0,
        points: [
          { image: [100, 100], table: [0.5, 0.2] },
          { image: [100, 900], table: [0.5, -0.2] },
          { image: [900, 100], table: [0.2, 0.2] },
          { image: [900, 900], table: [0.2, -0.2] },
        ],
      },
    },
    { name: "web", source: { http: "http://127.0.0.1:8080/snap", timeout_ms: 500 } },
    { name: "disk", source: { file: "/tmp/frame.jpg" } },
    { name: "usb", source: { device: "/dev/video0", width: 640, height: 480, fps: 30 } },
  ],
  scene: {
    table: { z: 0.01, color: "grey" },
    blocks: [
      { name: "a", color: "red", x: 0.3, y: 0.1, size: 0.04 },
      { name: "b", color: "#00ff00", x: 0.35, y: -0.1, size: 0.03, height: 0 },
    ],
  },
};

const ROS_KEYS = {
  arm: {
    joints: [{ name: "j1", min: -1, max: 1, max_velocity: 1, max_acceleration: 2 }],
    gripper: {},
    robot_description: { topic: "/robot_description", timeout_ms: 4000 },
    base_link: "base_link",
    tip_link: "tool0",
  },
  kinematics: "moveit",
  moveit: { group: "arm", service: "/compute_ik", solve_timeout_s: 2, call_timeout_ms: 3000, avoid_collisions: false },
  workspace: {
    frame: "base_link",
    keep_in: { min: [-1, -1, 0], max: [1, 1, 1] },
    floor_z: 0.01,
    max_step_m: 0.4,
    keep_out: [
      { name: "box", min: [0.1, 0.1, 0], max: [0.2, 0.2, 0.2] },
      { name: "pole", center: [-0.3, 0.3], radius: 0.05, z: [0, 1] },
    ],
    allowed_contacts: [["base_link", "tool0"]],
  },
  link_volumes: { tool0: [{ shape: "sphere", radius: 0.03 }, { shape: "capsule", from: [0, 0, 0], to: [0, 0, 0.1], radius: 0.02 }] },
  ros2: {
    node_name: "armbridge_x",
    joint_states_topic: "/js",
    joint_states_topics: ["/a/joint_states", "/b/joint_states"],
    joint_states_aggregator: "accept",
    controllers: [{ name: "arm_controller", action_name: "/arm_controller/follow_joint_trajectory" }],
    gripper: {
      action_name: "/g/gripper_cmd",
      kind: "parallel_gripper",
      joint: "finger",
      closed_position: 0.01,
      open_position: 0.05,
      max_effort: 20,
    },
    speed_scaling_topic: "",
    halt_own_goals: "cancel",
    goal_time_tolerance_s: 0.5,
    goal_velocity_tolerance: 0.1,
    feedback_idle_ms: 900,
    settle_ms: 800,
    min_motion_s: 0.25,
    server_wait_ms: 700,
    goal_response_timeout_ms: 600,
    cancel_timeout_ms: 500,
    result_margin_ms: 400,
    joint_states_timeout_ms: 300,
    probe_timeout_ms: 200,
  },
};

function shippedConfigFiles(): string[] {
  return readdirSync(CONFIG_DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
}

/** Plain JSON of a loaded config (undefined keys dropped, as a JSON file would). */
function plain(value: unknown): unknown {
  const root = packageRoot();
  return JSON.parse(JSON.stringify(value).split(root).join("<root>")) as unknown;
}

/** Name → loaded config, as plain JSON. */
export function loadEveryConfig(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const file of shippedConfigFiles()) out[`config/${file}`] = plain(loadConfig(join(CONFIG_DIR, file)));
  out["inline:every-key"] = plain(parseConfig(SIM_ARM_KEYS, "every-key", { baseDir: CONFIG_DIR }));
  out["inline:ros-keys"] = plain(parseConfig(ROS_KEYS, "ros-keys", { baseDir: CONFIG_DIR }));
  out["inline:defaults"] = plain(
    parseConfig({ arm: { joints: [{ name: "j", min: -1, max: 1, max_velocity: 1, max_acceleration: 1 }] } }),
  );
  return out;
}
