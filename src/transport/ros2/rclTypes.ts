/**
 * The part of rclnodejs 2.x that armbridge uses, as structural types. The real
 * module is loaded lazily (it needs a sourced ROS 2 and a native addon), so the
 * product code is typed against this subset; the real module and the test
 * double both satisfy it. Names and shapes follow rclnodejs's own .d.ts and
 * lib/ sources (lib/node.js, lib/action/client.js, lib/action/client_goal_handle.js).
 */

/** builtin_interfaces/msg/Time and Duration. */
export interface RosTime {
  sec: number;
  nanosec: number;
}

/** sensor_msgs/msg/JointState as rclnodejs delivers it: float64[] fields arrive as Float64Array. */
export interface JointStateMessage {
  header: { stamp: RosTime; frame_id: string };
  name: readonly string[];
  position: Float64Array | readonly number[];
  velocity: Float64Array | readonly number[];
  effort: Float64Array | readonly number[];
}

/** trajectory_msgs/msg/JointTrajectoryPoint. */
export interface JointTrajectoryPoint {
  positions: readonly number[] | Float64Array;
  velocities: readonly number[] | Float64Array;
  accelerations: readonly number[] | Float64Array;
  effort: readonly number[] | Float64Array;
  time_from_start: RosTime;
}

/** control_msgs/msg/JointTolerance: 0 keeps the controller default, -1 erases it. */
export interface JointTolerance {
  name: string;
  position: number;
  velocity: number;
  acceleration: number;
}

/** control_msgs/action/FollowJointTrajectory goal (fields armbridge sets; the rest keep their defaults). */
export interface FollowJointTrajectoryGoal {
  trajectory: {
    header: { stamp: RosTime; frame_id: string };
    joint_names: readonly string[];
    points: readonly JointTrajectoryPoint[];
  };
  path_tolerance: readonly JointTolerance[];
  goal_tolerance: readonly JointTolerance[];
  goal_time_tolerance: RosTime;
}

/** control_msgs/action/FollowJointTrajectory result. */
export interface FollowJointTrajectoryResult {
  error_code: number;
  error_string: string;
}

/**
 * control_msgs/action/FollowJointTrajectory feedback. JTC stamps it with the
 * control update's time and sets `desired.time_from_start` to the trajectory
 * time sampled (joint_trajectory_controller.cpp update, 4.42.1): the rate of
 * one against the other is the speed scaling in force.
 */
export interface FollowJointTrajectoryFeedback {
  header?: { stamp: RosTime; frame_id: string };
  joint_names: readonly string[];
  desired: JointTrajectoryPoint;
  actual: JointTrajectoryPoint;
  error: JointTrajectoryPoint;
}

/** control_msgs/action/GripperCommand goal. */
export interface GripperCommandGoal {
  command: { position: number; max_effort: number };
}

/** control_msgs/action/ParallelGripperCommand goal (Jazzy+): a JointState with one joint. */
export interface ParallelGripperCommandGoal {
  command: {
    name: readonly string[];
    position: readonly number[];
    velocity: readonly number[];
    effort: readonly number[];
  };
}

/** GripperCommand result; ParallelGripperCommand's has `state` (a JointState) instead of position/effort. */
export interface GripperResult {
  position?: number;
  state?: { position: Float64Array | readonly number[] };
  stalled: boolean;
  reached_goal: boolean;
}

/** action_msgs/srv/CancelGoal response. */
export interface CancelGoalResponse {
  return_code: number;
  goals_canceling: readonly unknown[];
}

/** rclnodejs ClientGoalHandle (lib/action/client_goal_handle.js). */
export interface RclClientGoalHandle {
  isAccepted(): boolean;
  /** action_msgs/msg/GoalStatus code; getResult() sets it from the result response before resolving. */
  readonly status: number;
  getResult(): Promise<unknown>;
  cancelGoal(): Promise<CancelGoalResponse>;
}

/** rclnodejs ActionClient (lib/action/client.js). */
export interface RclActionClient {
  /** Resolves on the goal response (accepted or not); never times out. */
  sendGoal(goal: object, feedbackCallback?: (feedback: unknown) => void): Promise<RclClientGoalHandle>;
  isActionServerAvailable(): boolean;
  /** Polls; `timeout` in ms, undefined or negative waits forever. */
  waitForServer(timeout?: number): Promise<boolean>;
  destroy(): void;
}

export type RclSubscription = object;

/** rclnodejs Parameter: INTEGER values are bigint, arrays are plain arrays. */
export interface RclParameter {
  readonly name: string;
  readonly type: number;
  readonly value: unknown;
}

/** An rclnodejs QoS object (lib/qos.js); opaque here, built with `new rcl.QoS(...)`. */
export type RclQoS = object;

/** rclnodejs Client (lib/client.js): `sendRequest(request, callback)`, `waitForService(timeoutMs)`. */
export interface RclServiceClient {
  sendRequest(request: object, callback: (response: unknown) => void): void;
  waitForService(timeout?: number): Promise<boolean>;
}

/** rclnodejs Node (lib/node.js). */
export interface RclNode {
  name(): string;
  createSubscription(typeClass: string, topic: string, callback: (message: unknown) => void): RclSubscription;
  /**
   * With options (lib/node.js createSubscription(typeClass, topic, options, callback)): `qos` a QoS
   * object or a profile name such as "qos_profile_sensor_data" (rclnodejs lib/qos.js); default
   * profileDefault (reliable, volatile).
   */
  createSubscription(
    typeClass: string,
    topic: string,
    options: { readonly qos?: RclQoS | string },
    callback: (message: unknown) => void,
  ): RclSubscription;
  /** How many publishers the graph has for a topic (lib/node.js countPublishers). */
  countPublishers?(topic: string): number;
  destroySubscription(subscription: RclSubscription): void;
  /** A service client (lib/node.js createClient; lib/client.js sendRequest / waitForService). */
  createClient(typeClass: string, serviceName: string): RclServiceClient;
  destroyClient(client: RclServiceClient): void;
  /**
   * Who publishes on a topic (lib/node.js getPublishersInfoByTopic →
   * TopicEndpointInfo): used to recognise a joint_state_publisher.
   */
  getPublishersInfoByTopic?(
    topic: string,
    noDemangle?: boolean,
  ): ReadonlyArray<{ readonly node_name: string; readonly node_namespace: string; readonly topic_type: string }>;
  declareParameter(parameter: RclParameter, descriptor?: unknown, ignoreOverride?: boolean): RclParameter;
  getParameter(name: string): RclParameter;
  hasParameter(name: string): boolean;
  spin(timeout?: number): void;
  destroy(): void;
  /** The node's clock: /clock time under `use_sim_time` (rclnodejs TimeSource), else system time. nanoseconds is a bigint. */
  now(): { readonly nanoseconds: bigint };
}

/** Values of rclnodejs's ParameterType (types/parameter.d.ts). */
export const ParameterType = {
  PARAMETER_NOT_SET: 0,
  PARAMETER_BOOL: 1,
  PARAMETER_INTEGER: 2,
  PARAMETER_DOUBLE: 3,
  PARAMETER_STRING: 4,
  PARAMETER_BYTE_ARRAY: 5,
  PARAMETER_BOOL_ARRAY: 6,
  PARAMETER_INTEGER_ARRAY: 7,
  PARAMETER_DOUBLE_ARRAY: 8,
  PARAMETER_STRING_ARRAY: 9,
} as const;

/** The rclnodejs module object (its default export). */
export interface Rclnodejs {
  init(context?: unknown, argv?: string[]): Promise<void>;
  Node: new (nodeName: string, namespace?: string) => RclNode;
  ActionClient: new (node: RclNode, typeClass: string, actionName: string, options?: object) => RclActionClient;
  Parameter: new (name: string, type: number, value?: unknown) => RclParameter;
  /** lib/qos.js: `new QoS(history, depth, reliability, durability)`. */
  QoS: new (history?: number, depth?: number, reliability?: number, durability?: number) => RclQoS;
  shutdown(): void;
  isShutdown(): boolean;
  /** Removes the SIGINT handler rclnodejs installs when it is imported. */
  removeSignalHandlers(): void;
}

/** action_msgs/msg/GoalStatus codes. */
export const GoalStatus = {
  UNKNOWN: 0,
  ACCEPTED: 1,
  EXECUTING: 2,
  CANCELING: 3,
  SUCCEEDED: 4,
  CANCELED: 5,
  ABORTED: 6,
} as const;

/** control_msgs/action/FollowJointTrajectory result codes. */
export const FjtErrorCode = {
  SUCCESSFUL: 0,
  INVALID_GOAL: -1,
  INVALID_JOINTS: -2,
  OLD_HEADER_TIMESTAMP: -3,
  PATH_TOLERANCE_VIOLATED: -4,
  GOAL_TOLERANCE_VIOLATED: -5,
} as const;

/** QoS policy values (rclnodejs lib/qos.js, the rmw enums). */
export const QosPolicy = {
  HISTORY_KEEP_LAST: 1,
  RELIABILITY_RELIABLE: 1,
  RELIABILITY_BEST_EFFORT: 2,
  DURABILITY_TRANSIENT_LOCAL: 1,
  DURABILITY_VOLATILE: 2,
} as const;

export const MSG_JOINT_STATE = "sensor_msgs/msg/JointState";
export const MSG_STRING = "std_msgs/msg/String";
export const ACTION_FOLLOW_JOINT_TRAJECTORY = "control_msgs/action/FollowJointTrajectory";
export const ACTION_GRIPPER_COMMAND = "control_msgs/action/GripperCommand";
export const ACTION_PARALLEL_GRIPPER_COMMAND = "control_msgs/action/ParallelGripperCommand";
