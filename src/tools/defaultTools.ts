import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf } from "../kinematics/armKinematics.js";
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

/** The default tool set, one file per tool (their argument shapes are a contract other tools rely on). */
export function createDefaultTools(config: ArmConfig): ToolRegistry {
  const registry = new ToolRegistry();
  const register = (tool: ToolDefinition): void => void registry.register(withApprovalNote(config, tool));
  register(moveJoints(config));
  register(moveToNamedPose(config));
  const kinematics = armKinematicsOf(config);
  if (kinematics) register(moveToPointTool(config, kinematics));
  // Orientation needs six axes; a five-axis arm (SO-101) gets position-only move_to_point.
  if (kinematics && kinematics.chain.dof >= 6) register(moveToPoseTool(config, kinematics));
  if (config.arm.gripper) register(setGripper(config, config.arm.gripper));
  register(getArmState(config));
  register(getActionStatus(config));
  register(stop(config));
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
