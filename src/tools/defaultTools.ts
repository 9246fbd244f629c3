import type { Cameras } from "../cameras/Cameras.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf } from "../kinematics/armKinematics.js";
import { getActionStatus } from "./getActionStatus.js";
import { getArmState } from "./getArmState.js";
import { getCameraImageTool } from "./getCameraImage.js";
import { moveJoints } from "./moveJoints.js";
import { moveToImagePointTool } from "./moveToImagePoint.js";
import { moveToNamedPose } from "./moveToNamedPose.js";
import { moveToPointTool } from "./moveToPoint.js";
import { moveToPoseTool } from "./moveToPose.js";
import { setGripper } from "./setGripper.js";
import { stop } from "./stop.js";
import type { ToolDefinition } from "./ToolDefinition.js";
import { ToolRegistry } from "./ToolRegistry.js";

export interface DefaultToolsOptions {
  /** The configured cameras, opened: with them come get_camera_image and (for a calibrated camera) move_to_image_point. */
  readonly cameras?: Cameras | undefined;
}

/** The default tool set, one file per tool (their argument shapes are a contract other tools rely on). */
export function createDefaultTools(config: ArmConfig, options: DefaultToolsOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(moveJoints(config));
  registry.register(moveToNamedPose(config));
  const kinematics = armKinematicsOf(config);
  if (kinematics) registry.register(moveToPointTool(config, kinematics));
  // Orientation needs six axes; a five-axis arm (SO-101) gets position-only move_to_point.
  if (kinematics && kinematics.chain.dof >= 6) registry.register(moveToPoseTool(config, kinematics));
  if (config.arm.gripper) registry.register(setGripper(config, config.arm.gripper));
  registry.register(getArmState(config));
  registry.register(getActionStatus(config));
  registry.register(stop(config));
  const cameras = options.cameras;
  if (cameras && cameras.names().length > 0) {
    registry.register(getCameraImageTool(config, cameras));
    const toImagePoint = kinematics && moveToImagePointTool(config, kinematics, cameras);
    if (toImagePoint) registry.register(toImagePoint);
  }
  return registry;
}

export type { ToolDefinition };
