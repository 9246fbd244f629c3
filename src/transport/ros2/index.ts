export { Ros2Host, MSG_COMPRESSED_IMAGE, CAMERA_QOS, type Ros2HostDeps, type RosImageTopics } from "./Ros2Host.js";
export { Ros2Transport } from "./Ros2Transport.js";
export type { Ros2Feedback, Ros2TransportDeps } from "./Ros2TransportDeps.js";
export { createRos2Node, type CreateRos2NodeOptions, type Ros2NodeHandle } from "./createRos2Node.js";
export { loadRclnodejs, type LoadRclnodejsOptions, type RclnodejsImporter } from "./loadRclnodejs.js";
export {
  ros2OptionsFileSchema,
  ros2OptionsOf,
  type Ros2Options,
  type Ros2OptionsFile,
  type GripperKind,
} from "./Ros2Options.js";
export {
  resolveRos2Setup,
  DEFAULT_CONTROLLER_NAME,
  type Ros2Setup,
  type TrajectoryControllerSetup,
  type GripperSetup,
} from "./resolveRos2Setup.js";
export { buildTrajectoryGoal, restToRestTime } from "./buildTrajectoryGoal.js";
export type { Rclnodejs } from "./rclTypes.js";
