import { z } from "zod";
import { approvalSection } from "./sections/approval.js";
import { armSection } from "./sections/arm.js";
import { busSection } from "./sections/bus.js";
import { camerasFileSchema } from "./sections/cameras.js";
import { kinematicsSection } from "./sections/kinematics.js";
import { motionSection } from "./sections/motion.js";
import { recordingSection } from "./sections/recording.js";
import { ros2SectionSchema } from "./sections/ros2.js";
import { sceneFileSchema } from "./sections/simulator.js";
import { linkVolumesSection, workspaceSection } from "./sections/workspace.js";

/**
 * The arm config file: one schema per section (src/config/sections), joined
 * here in the order the file reads. Keys are snake_case in the file (as in
 * ROS parameter files) and camelCase in code, by one mapping (camelDeep);
 * docs/config.md is generated from these schemas (npm run docs:config).
 */
export const armConfigFile = z
  .object({
    ...busSection,
    ...armSection,
    ...workspaceSection,
    ...kinematicsSection,
    ros2: ros2SectionSchema
      .optional()
      .describe("How to reach the arm's ROS 2 controllers (docs/ros2.md); ROS parameters override it."),
    ...motionSection,
    ...approvalSection,
    ...linkVolumesSection,
    cameras: camerasFileSchema,
    scene: sceneFileSchema,
    ...recordingSection,
  })
  .strict();

export type ArmConfigFileValue = z.output<typeof armConfigFile>;
