import { ros2SectionSchema, type GripperKindName, type Ros2SectionFile } from "../../config/sections/ros2.js";

/**
 * The ROS 2 transport's options: the arm config's `ros2:` section
 * (src/config/sections/ros2.ts, snake_case as in files and ROS parameters) in
 * camelCase. Every field can be overridden by a ROS parameter of the same
 * name on the `armbridge` node (see createRos2Node), so launch files and
 * `--params-file` win over a file.
 */
export const ros2OptionsFileSchema = ros2SectionSchema.transform((f) => ({
  nodeName: f.node_name,
  jointStatesTopic: f.joint_states_topic,
  jointStatesTopics: f.joint_states_topics,
  jointStatesAggregator: f.joint_states_aggregator,
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
  speedScalingTopic: f.speed_scaling_topic,
  haltOwnGoals: f.halt_own_goals,
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
  probeTimeoutMs: f.probe_timeout_ms,
}));

export type Ros2OptionsFile = Ros2SectionFile;
export type Ros2Options = ReturnType<typeof ros2OptionsFileSchema.parse>;
export type Ros2GripperOptions = NonNullable<Ros2Options["gripper"]>;
export type GripperKind = GripperKindName;

/** The JTC action name convention. */
export function defaultTrajectoryAction(controller: string): string {
  return `/${controller}/follow_joint_trajectory`;
}
