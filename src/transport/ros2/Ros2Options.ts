import { z } from "zod";

/**
 * The ROS 2 section of armbridge's configuration. snake_case in files and ROS
 * parameters, camelCase in code (as in ArmConfig). Every field here can be
 * overridden by a ROS parameter of the same name on the `armbridge` node (see
 * createRos2Node), so launch files and `--params-file` win over a file.
 *
 * Joint membership of each controller lives in the arm config
 * (`arm.controllers`), because the executor's lock keys are derived from it:
 * a controller here only adds how to reach it.
 */
const rosName = z
  .string()
  .regex(/^[~/]?[A-Za-z_][A-Za-z0-9_/]*$/, "a ROS name: letters, digits, underscores and slashes, optionally starting with / or ~");

const positive = z.number().finite().positive();

const controllerFile = z
  .object({
    name: z.string().min(1),
    /** FollowJointTrajectory action; JTC serves `<controller_name>/follow_joint_trajectory`. */
    action_name: rosName.optional(),
  })
  .strict();

const gripperFile = z
  .object({
    /** gripper_action_controller and parallel_gripper_controller both serve `<controller_name>/gripper_cmd`. */
    action_name: rosName.default("/gripper_controller/gripper_cmd"),
    /** `gripper_command`: control_msgs/action/GripperCommand; `parallel_gripper`: ParallelGripperCommand (Jazzy+). */
    kind: z.enum(["gripper_command", "parallel_gripper"]).default("gripper_command"),
    /** The gripper's joint in /joint_states (and in ParallelGripperCommand goals). */
    joint: z.string().min(1).default("gripper_joint"),
    /** Controller position for armbridge's 0 (closed) and 1 (open), in the joint's units (m or rad). */
    closed_position: z.number().finite().default(0),
    open_position: z.number().finite().default(0.04),
    max_effort: z.number().finite().nonnegative().default(10),
  })
  .strict()
  .refine((g) => g.closed_position !== g.open_position, { message: "closed_position and open_position must differ" });

export const ros2OptionsFileSchema = z
  .object({
    node_name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("armbridge"),
    joint_states_topic: rosName.default("/joint_states"),
    controllers: z.array(controllerFile).default([]),
    gripper: gripperFile.optional(),
    /**
     * Extra time the controller gets after the trajectory's end to reach the
     * goal tolerance. Must be > 0: in FollowJointTrajectory a goal time of 0
     * means "use the controller default", and JTC's default `constraints.goal_time`
     * of 0 means it waits forever for a joint that cannot get there.
     */
    goal_time_tolerance_s: positive.default(1.0),
    /**
     * Per-joint velocity tolerance at the goal (rad/s), sent with every goal.
     * 0 keeps the controller default, stopped_velocity_tolerance (0.01), which
     * the velocity noise of a real arm at rest can exceed: JTC (with velocity
     * state and velocity/effort command interfaces) then aborts a goal that
     * reached its position with GOAL_TOLERANCE_VIOLATED.
     */
    goal_velocity_tolerance: z.number().finite().nonnegative().default(0.05),
    /**
     * JTC publishes feedback only for its active goal: a goal of ours whose
     * feedback has stopped this long without a result was dropped by the
     * controller (preempted on Humble / Jazzy < 4.41, whose result comes only
     * when the preempting goal ends). We then settle it by observation.
     */
    feedback_idle_ms: positive.default(1000),
    /** How long /joint_states may take to show an outcome we judge by observation (no result, or a gripper "reached"). */
    settle_ms: positive.default(1000),
    /** Shortest trajectory we send, so a tiny move is not a step command. */
    min_motion_s: positive.default(0.1),
    /** How long runMotion waits for an action server to appear before refusing. */
    server_wait_ms: positive.default(2000),
    /** How long we wait for a goal response (accept/reject) before calling the link failed. */
    goal_response_timeout_ms: positive.default(2000),
    /** How long halt waits for a cancel response. */
    cancel_timeout_ms: positive.default(1000),
    /**
     * Without feedback (gripper controllers send none), getResult may take the
     * trajectory time + goal_time_tolerance + this margin, counted on the node
     * clock (sim time under use_sim_time).
     */
    result_margin_ms: positive.default(2000),
    /** open() waits this long for the first JointState. */
    joint_states_timeout_ms: positive.default(5000),
  })
  .strict()
  .transform((f) => ({
    nodeName: f.node_name,
    jointStatesTopic: f.joint_states_topic,
    controllers: f.controllers.map((c) => ({ name: c.name, actionName: c.action_name })),
    gripper: f.gripper
      ? {
          actionName: f.gripper.action_name,
          kind: f.gripper.kind,
          joint: f.gripper.joint,
          closedPosition: f.gripper.closed_position,
          openPosition: f.gripper.open_position,
          maxEffort: f.gripper.max_effort,
        }
      : undefined,
    goalTimeToleranceS: f.goal_time_tolerance_s,
    goalVelocityTolerance: f.goal_velocity_tolerance,
    feedbackIdleMs: f.feedback_idle_ms,
    settleMs: f.settle_ms,
    minMotionS: f.min_motion_s,
    serverWaitMs: f.server_wait_ms,
    goalResponseTimeoutMs: f.goal_response_timeout_ms,
    cancelTimeoutMs: f.cancel_timeout_ms,
    resultMarginMs: f.result_margin_ms,
    jointStatesTimeoutMs: f.joint_states_timeout_ms,
  }));

export type Ros2OptionsFile = z.input<typeof ros2OptionsFileSchema>;
export type Ros2Options = z.output<typeof ros2OptionsFileSchema>;
export type Ros2GripperOptions = NonNullable<Ros2Options["gripper"]>;
export type GripperKind = Ros2GripperOptions["kind"];

/** The JTC action name convention. */
export function defaultTrajectoryAction(controller: string): string {
  return `/${controller}/follow_joint_trajectory`;
}
