import { ArmbridgeError } from "../../errors.js";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { ros2SectionSchema, type GripperKindName, type Ros2SectionFile } from "../../config/sections/ros2.js";
import { camelDeep } from "../../config/snakeToCamel.js";
import { formatIssues } from "../../validation/formatIssues.js";

/**
 * The ROS 2 transport's options: the arm config's `ros2:` section
 * (src/config/sections/ros2.ts, snake_case as in files and ROS parameters) in
 * camelCase. Every field can be overridden by a ROS parameter of the same
 * name on the `armbridge` node (see createRos2Node), so launch files and
 * `--params-file` win over a file.
 */
export const ros2OptionsFileSchema = ros2SectionSchema.transform((f) => camelDeep(ros2SectionSchema, f));

export type Ros2OptionsFile = Ros2SectionFile;
export type Ros2Options = ReturnType<typeof ros2OptionsFileSchema.parse>;
export type Ros2GripperOptions = NonNullable<Ros2Options["gripper"]>;
export type GripperKind = GripperKindName;

/** The JTC action name convention. */
export function defaultTrajectoryAction(controller: string): string {
  return `/${controller}/follow_joint_trajectory`;
}

/**
 * The options the ROS transport starts from, before ROS parameters: those
 * given in code (file form, as a test or an embedder writes them), else the
 * config's `ros2:` section, else the defaults.
 */
export function ros2OptionsOf(given: Ros2OptionsFile | undefined, config: ArmConfig | undefined): Ros2Options {
  if (given === undefined) return config?.ros2 ?? ros2OptionsFileSchema.parse({});
  const parsed = ros2OptionsFileSchema.safeParse(given);
  if (!parsed.success) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
      path: "ros2 options",
      issues: formatIssues(parsed.error.issues),
    });
  }
  return parsed.data;
}
