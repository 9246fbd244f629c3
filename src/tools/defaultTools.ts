import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf, type ArmKinematics } from "../kinematics/armKinematics.js";
import type { RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";
import { getActionStatus } from "./getActionStatus.js";
import { getArmState } from "./getArmState.js";
import { moveJoints } from "./moveJoints.js";
import { moveToNamedPose } from "./moveToNamedPose.js";
import { moveToPointTool } from "./moveToPoint.js";
import { moveToPoseTool } from "./moveToPose.js";
import { setGripper } from "./setGripper.js";
import { stop } from "./stop.js";
import type { ToolDefinition } from "./ToolDefinition.js";
import { ToolRegistry } from "./ToolRegistry.js";

export interface DefaultToolsOptions {
  /**
   * `kinematics: moveit`: the IK service the Cartesian tools ask (built by the
   * ROS transport from the chain). Without it they use the local solver.
   */
  readonly remoteIk?: ((kin: ArmKinematics) => RemoteIkSolver) | undefined;
}

/** The default tool set, one file per tool (their argument shapes are a contract other tools rely on). */
export function createDefaultTools(config: ArmConfig, options: DefaultToolsOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(moveJoints(config));
  registry.register(moveToNamedPose(config));
  const kinematics = armKinematicsOf(config);
  const remote = kinematics ? options.remoteIk?.(kinematics) : undefined;
  if (kinematics) registry.register(moveToPointTool(config, kinematics, remote));
  // Orientation needs six axes; a five-axis arm (SO-101) gets position-only move_to_point.
  if (kinematics && kinematics.chain.dof >= 6) registry.register(moveToPoseTool(config, kinematics, remote));
  if (config.arm.gripper) registry.register(setGripper(config, config.arm.gripper));
  registry.register(getArmState(config));
  registry.register(getActionStatus(config));
  registry.register(stop(config));
  return registry;
}

export type { ToolDefinition };
