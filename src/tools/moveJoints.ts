import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { observeTargets } from "../executor/toolContract/observeTargets.js";
import { MOTION_RESULT_GUIDE, speedOf, speedSchema } from "./speedSchema.js";
import { defineMotionTool, type MotionTool } from "../executor/toolContract/ToolDefinition.js";
import { namesOf } from "../validation/nameChoices.js";

/** `move_joints {positions: {joint: rad}, speed?}`: absolute joint targets (a contract other tools rely on). */
export function moveJoints(config: ArmConfig): MotionTool {
  const joints = config.arm.joints;
  // Joint names never collide with Object.prototype (the config refuses such names), so a plain shape is safe.
  const positionsShape: Record<string, z.ZodOptional<z.ZodNumber>> = {};
  for (const j of joints) {
    positionsShape[j.name] = z
      .number()
      .min(j.min)
      .max(j.max)
      .optional()
      .describe(`Absolute target for ${j.name} in radians, within [${j.min}, ${j.max}].`);
  }
  const args = z
    .object({
      positions: namesOf(
        z
          .strictObject(positionsShape)
          // An unknown joint is its own issue (naming the arm's joints); "none named" would only repeat it.
          .refine((p) => Object.values(p).some((v) => v !== undefined), {
            message: `name at least one joint; the arm's joints: ${joints.map((j) => j.name).join(", ")}`,
            when: (payload) => payload.issues.length === 0,
          })
          .describe(
            `Absolute joint targets in radians, by joint name. Joints: ${joints.map((j) => j.name).join(", ")}.`,
          ),
        { what: "joint", among: "the arm's joints" },
      ),
      speed: speedSchema(config),
    })
    .strict();
  return defineMotionTool({
    name: "move_joints",
    description: `Move one or more arm joints to absolute target angles (radians) and wait until they get there. ${MOTION_RESULT_GUIDE}`,
    args,
    blocking: true,
    resources: (a) => resourcesFor(config, Object.keys(definedPositions(a.positions))),
    timeoutMs: config.timeoutsMs.moveJoints,
    onTimeout: "observe",
    plan: (a) => ({ targets: definedPositions(a.positions), speed: speedOf(a) }),
    observe: observeTargets,
  });
}

function definedPositions(p: Readonly<Record<string, number | undefined>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(p)) if (v !== undefined) out[k] = v;
  return out;
}
