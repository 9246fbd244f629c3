import type { z } from "zod";
import { toKeepOutZones } from "./envelopeConfig.js";
import { checkArmConfig } from "./checkArmConfig.js";
import { camelDeep } from "./snakeToCamel.js";
import { armConfigFile, type ArmConfigFileValue } from "./armConfigFile.js";
import { toApprovalRules } from "./sections/approval.js";
import { toCameraConfigs } from "./sections/cameras.js";
import { toSceneConfig } from "./sections/simulator.js";


/**
 * The file's values in code's names, and the few keys code holds in another
 * shape than the file: zones and cameras as the envelope and the cameras use
 * them, approval rules as tagged values, presence only when required.
 */
function toArmConfig(file: ArmConfigFileValue) {
  const config = camelDeep(armConfigFile, file);
  const workspace = config.workspace;
  return {
    ...config,
    arm: {
      ...config.arm,
      /** The URDF text read from arm.robot_description at start (set by the ROS transport, never from a file). */
      urdfText: undefined as string | undefined,
    },
    workspace: workspace
      ? {
          ...workspace,
          keepOut: toKeepOutZones(file.workspace?.keep_out),
          allowedContacts: workspace.allowedContacts ?? [],
        }
      : undefined,
    approval: toApprovalRules(file.approval),
    /** Undefined unless `operator_presence.required` is true: the default bridge needs no console. */
    operatorPresence:
      file.operator_presence?.required === true ? { timeoutMs: file.operator_presence.timeout_ms } : undefined,
    cameras: toCameraConfigs(file.cameras),
    scene: toSceneConfig(file.scene),
  };
}

export const armConfigFileSchema = armConfigFile.superRefine(checkArmConfig).transform(toArmConfig);

export type { ApprovalRule } from "./sections/approval.js";
export type ArmConfigFile = z.input<typeof armConfigFileSchema>;
export type ArmConfig = z.output<typeof armConfigFileSchema>;
export type JointConfig = ArmConfig["arm"]["joints"][number];
export type GripperConfig = NonNullable<ArmConfig["arm"]["gripper"]>;
export type BusConfig = NonNullable<ArmConfig["bus"]>;
export type JointServoConfig = NonNullable<JointConfig["servo"]>;
export type GripperServoConfig = NonNullable<GripperConfig["servo"]>;
export type WorkspaceConfig = NonNullable<ArmConfig["workspace"]>;
