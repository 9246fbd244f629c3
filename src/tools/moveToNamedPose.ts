import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { observeTargets } from "../executor/toolContract/observeTargets.js";
import { MOTION_RESULT_GUIDE, speedOf, speedSchema } from "./speedSchema.js";
import { defineMotionTool, type MotionTool } from "../executor/toolContract/ToolDefinition.js";
import { namesOf } from "../validation/nameChoices.js";

/** `move_to_named_pose {pose, speed?}`: a pose from the arm config. */
export function moveToNamedPose(config: ArmConfig): MotionTool {
  const poses = new Map(Object.entries(config.arm.namedPoses));
  const names = [...poses.keys()];
  const args = z
    .object({
      pose: namesOf(
        (names.length > 0 ? z.enum(names as [string, ...string[]]) : z.never()).describe(
          `One of: ${names.join(", ") || "(none configured)"}.`,
        ),
        {
          what: "named pose",
          among: "the arm's named poses",
        },
      ),
      speed: speedSchema(config),
    })
    .strict();
  return defineMotionTool({
    name: "move_to_named_pose",
    description: `Move the arm's joints to a configured named pose (${names.join(", ")}) and wait until it gets there. ${MOTION_RESULT_GUIDE}`,
    args,
    blocking: true,
    resources: (a) => resourcesFor(config, Object.keys(poses.get(a.pose) ?? {})),
    timeoutMs: config.timeoutsMs.moveToNamedPose,
    onTimeout: "observe",
    plan: (a) => ({ targets: { ...(poses.get(a.pose) ?? {}) }, speed: speedOf(a) }),
    observe: observeTargets,
  });
}
