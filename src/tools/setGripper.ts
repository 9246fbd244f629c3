import { z } from "zod";
import type { ArmConfig, GripperConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { observeTargets } from "../executor/toolContract/observeTargets.js";
import { MOTION_RESULT_GUIDE, speedOf, speedSchema } from "./speedSchema.js";
import { defineMotionTool, type MotionTool } from "../executor/toolContract/ToolDefinition.js";

/** `set_gripper {position: 0..1, speed?}`: 0 closed, 1 open. */
export function setGripper(config: ArmConfig, gripper: GripperConfig): MotionTool {
  return defineMotionTool({
    name: "set_gripper",
    description: `Open or close the gripper: position 0 is fully closed, 1 fully open. Waits until it gets there. ${MOTION_RESULT_GUIDE}`,
    args: z
      .object({
        position: z.number().min(0).max(1).describe("Gripper opening, 0 (closed) to 1 (open)."),
        speed: speedSchema(config),
      })
      .strict(),
    blocking: true,
    resources: () => resourcesFor(config, [gripper.name]),
    timeoutMs: config.timeoutsMs.setGripper,
    onTimeout: "observe",
    plan: (a) => ({ targets: { [gripper.name]: a.position }, speed: speedOf(a) }),
    observe: observeTargets,
  });
}
