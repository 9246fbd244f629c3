import type { Cameras } from "../cameras/Cameras.js";
import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf, type ArmKinematics } from "../kinematics/armKinematics.js";
import type { RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";
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
import type { ToolDefinition } from "../executor/toolContract/ToolDefinition.js";
import { ToolRegistry } from "../executor/toolContract/ToolRegistry.js";

export interface DefaultToolsOptions {
  /**
   * `kinematics: moveit`: the IK service the Cartesian tools ask (built by the
   * ROS transport from the chain). Without it they use the local solver.
   */
  readonly remoteIk?: ((kin: ArmKinematics) => RemoteIkSolver) | undefined;
  /** The configured cameras, opened: with them come get_camera_image and (for a calibrated camera) move_to_image_point. */
  readonly cameras?: Cameras | undefined;
}

/** The default tool set, one file per tool (their argument shapes are a contract other tools rely on). */
export function createDefaultTools(config: ArmConfig, options: DefaultToolsOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  const register = (tool: ToolDefinition): void => void registry.register(withApprovalNote(config, tool));
  register(moveJoints(config));
  register(moveToNamedPose(config));
  const kinematics = armKinematicsOf(config);
  const remote = kinematics ? options.remoteIk?.(kinematics) : undefined;
  if (kinematics) register(moveToPointTool(config, kinematics, remote));
  // Orientation needs six axes; a five-axis arm (SO-101) gets position-only move_to_point.
  if (kinematics && kinematics.chain.dof >= 6) register(moveToPoseTool(config, kinematics, remote));
  if (config.arm.gripper) register(setGripper(config, config.arm.gripper));
  register(getArmState(config));
  register(getActionStatus(config));
  register(stop(config));
  const cameras = options.cameras;
  if (cameras && cameras.names().length > 0) {
    registry.register(getCameraImageTool(config, cameras));
    const toImagePoint = kinematics && moveToImagePointTool(config, kinematics, cameras);
    if (toImagePoint) registry.register(toImagePoint);
  }
  return registry;
}

/**
 * Tells the model, in a tool's description, when its calls wait for an
 * operator (config `approval`), so a long wait reads as expected and a
 * `rejected` answer naming an operator is not a surprise.
 */
function withApprovalNote(config: ArmConfig, tool: ToolDefinition): ToolDefinition {
  const rule = config.approval[tool.name];
  if (!rule || rule.kind === "never" || !tool.blocking) return tool;
  const when = rule.kind === "always" ? "Every call" : `A call that moves ${rule.joints.join(", ")}`;
  return {
    ...tool,
    description: `${tool.description} ${when} waits for an operator at the arm to approve it before anything moves (up to ${config.approvalTimeoutMs / 1000} s); if they decline or nobody answers, nothing is sent and the answer says so.`,
  };
}

export type { ToolDefinition };
