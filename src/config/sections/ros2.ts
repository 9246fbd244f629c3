import { z } from "zod";

/**
 * The `ros2:` section of an arm config file: how to reach the arm's ROS 2
 * controllers. It lives on the config floor so a shipped config (a UR, a
 * Franka) can say everything about its arm in one file; the ROS transport
 * turns it into its options (src/transport/ros2/Ros2Options.ts) and every
 * field can still be overridden by a ROS parameter of the `armbridge` node.
 * snake_case as in the file and the parameters.
 *
 * Joint membership of each controller lives in `arm.controllers`, because the
 * executor's lock keys are derived from it: a controller here only adds how
 * to reach it.
 */
const rosName = z
  .string()
  .regex(/^[~/]?[A-Za-z_][A-Za-z0-9_/]*$/, "a ROS name: letters, digits, underscores and slashes, optionally starting with / or ~");

const positive = z.number().finite().positive();

const controllerSection = z
  .object({
    name: z.string().min(1),
    action_name: rosName.optional().describe("FollowJointTrajectory action; JTC serves `<controller_name>/follow_joint_trajectory`."),
  })
  .strict();

/**
 * How the gripper's action server behaves:
 * - `gripper_command`: gripper_action_controller (control_msgs/action/GripperCommand);
 * - `parallel_gripper`: parallel_gripper_controller (ParallelGripperCommand, Jazzy+);
 * - `franka`: franka_gripper's own GripperCommand server (position = half the width; a close
 *   is a grasp with an epsilon; a grasp that meets an object fails with reached_goal false);
 * - `auto`: GripperCommand, and franka semantics when the server's node has franka_gripper's
 *   parameters (default_grasp_epsilon.*), read at start.
 */
export const GRIPPER_KINDS = ["auto", "gripper_command", "parallel_gripper", "franka"] as const;

const gripperSection = z
  .object({
    action_name: rosName.default("/gripper_controller/gripper_cmd").describe("gripper_action_controller and parallel_gripper_controller serve `<controller_name>/gripper_cmd`; franka_gripper `/franka_gripper/gripper_action`."),
    kind: z.enum(GRIPPER_KINDS).default("auto"),
    joint: z.string().min(1).default("gripper_joint").describe("The gripper's joint in /joint_states (and in ParallelGripperCommand goals); franka: fr3_finger_joint1."),
    closed_position: z.number().finite().default(0).describe("Controller position for armbridge's 0 (closed) and 1 (open), in the joint's units (m or rad); franka: per finger, 0 and 0.04."),
    open_position: z.number().finite().default(0.04),
    max_effort: z.number().finite().nonnegative().default(10),
  })
  .strict()
  .refine((g) => g.closed_position !== g.open_position, { message: "closed_position and open_position must differ" });

export const ros2SectionSchema = z
  .object({
    node_name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("armbridge"),
    joint_states_topic: rosName.default("/joint_states"),
    joint_states_topics: z.array(rosName).min(1).optional().describe("Subscribe to these JointState topics instead of `joint_states_topic` (each driver's own topic: a dead driver then goes stale, which an aggregating joint_state_publisher hides)."),
    joint_states_aggregator: z.enum(["follow_sources", "accept"]).default("follow_sources").describe("When every publisher of `joint_states_topic` is a joint_state_publisher (which republishes cached values at its own rate, fresh-looking even after a driver died): `follow_sources` subscribes to its `source_list` instead (read from its parameters at start); `accept` uses it as is."),
    controllers: z.array(controllerSection).default([]),
    gripper: gripperSection.optional(),
    speed_scaling_topic: z.union([rosName, z.literal("")]).default("/speed_scaling_state_broadcaster/speed_scaling").describe("UR's speed_scaling_state_broadcaster topic (std_msgs/Float64, percent); \"\" for none. JTC's own speed scaling is read from its feedback."),
    halt_own_goals: z.enum(["auto", "decelerate", "cancel"]).default("auto").describe("How `halt` stops our own goals: `decelerate` preempts them with a hold goal that brakes at the joints' max_acceleration; `cancel` cancels them (JTC then holds the measured position at once, or ramps down with decelerate_on_cancel); `auto` cancels only when the controller's parameters show decelerate_on_cancel, else decelerates."),
    goal_time_tolerance_s: positive.default(1.0).describe("Seconds, as it mirrors FollowJointTrajectory's `goal_time_tolerance` and the node's ROS parameter of that name, which overrides it. Extra time the controller gets after the trajectory's end to reach the goal tolerance. Must be > 0: in FollowJointTrajectory a goal time of 0 means \"use the controller default\", and JTC's default `constraints.goal_time` of 0 means it waits forever for a joint that cannot get there."),
    goal_velocity_tolerance: z.number().finite().nonnegative().default(0.05).describe("Per-joint velocity tolerance at the goal (rad/s), sent with every goal. 0 keeps the controller default, stopped_velocity_tolerance (0.01), which the velocity noise of a real arm at rest can exceed: JTC (with velocity state and velocity/effort command interfaces) then aborts a goal that reached its position with GOAL_TOLERANCE_VIOLATED."),
    feedback_idle_ms: positive.default(1000).describe("JTC stamps its feedback on every control update: a goal of ours whose feedback stamps have stopped advancing this long without a result was dropped by the controller (preempted on Humble / Jazzy < 4.41, whose result comes only when the preempting goal ends). We then settle it by observation."),
    settle_ms: positive.default(1000).describe("How long /joint_states may take to show an outcome we judge by observation (no result, or a gripper \"reached\")."),
    joint_limit_margin_rad: z.number().finite().nonnegative().optional().describe("Radians; unset = 0. Motions whose target lies closer than this to a joint's configured min or max are refused before anything is sent. An FR3 lowers each joint's velocity limit near its position limit (libfranka rate_limiting.h), to 0 a few mrad before it: a move braking at max_acceleration into a target there exceeds that limit and can end in a reflex. config/franka-fr3-ros2.yaml sets the margin its caps need."),
    min_motion_ms: positive.default(100).describe("Shortest trajectory we send, so a tiny move is not a step command: the least `time_from_start` of its end point."),
    server_wait_ms: positive.default(2000).describe("How long runMotion waits for an action server to appear before refusing."),
    goal_response_timeout_ms: positive.default(2000).describe("How long we wait for a goal response (accept/reject) before calling the link failed."),
    cancel_timeout_ms: positive.default(1000).describe("How long halt waits for a cancel response."),
    result_margin_ms: positive.default(2000).describe("Without feedback (gripper controllers send none), getResult may take the trajectory time + goal_time_tolerance + this margin, counted on the node clock (sim time under use_sim_time)."),
    joint_states_timeout_ms: positive.default(5000).describe("open() waits this long for the first JointState."),
    probe_timeout_ms: positive.default(1500).describe("How long start-up may spend reading the controllers' parameters (versions, speed scaling, tolerances)."),
  })
  .strict();

export type Ros2SectionFile = z.input<typeof ros2SectionSchema>;
export type Ros2Section = z.output<typeof ros2SectionSchema>;
export type GripperKindName = (typeof GRIPPER_KINDS)[number];
