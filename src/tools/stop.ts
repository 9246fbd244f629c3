import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { actuatorsOf } from "../config/actuators.js";
import { poseOf } from "../transport/poseOf.js";
import { defineReadTool, type HaltTool, type ReadTool } from "../executor/ToolDefinition.js";

/** `stop {joints?}`: halts now; bypasses the queue and the quarantine. */
export function stop(config: ArmConfig): ReadTool | HaltTool {
  const axisNames = actuatorsOf(config).map((a) => a.name);
  return defineReadTool({
    name: "stop",
    description:
      "Halt motion now and hold position: the named joints, or every axis when none are named. Always allowed, never queued. " +
      "Returns the pose observed after halting. Interrupted motions end with status unknown and need an operator's confirmation.",
    args: z
      .object({
        joints: z
          .array(z.enum(axisNames as [string, ...string[]]))
          .min(1)
          .max(axisNames.length)
          .optional()
          .describe(`Axes to halt (${axisNames.join(", ")}); omit to halt everything.`),
      })
      .strict(),
    blocking: false,
    kind: "halt",
    timeoutMs: config.timeoutsMs.stop,
    run: async (args, ctx, signal) => {
      const halted = await ctx.halt({ ...(args.joints ? { axes: args.joints } : {}), signal });
      const pose = poseOf(halted.status);
      const what = args.joints ? args.joints.join(", ") : "all axes";
      const message = halted.halted
        ? `Halted ${what}.${pose ? "" : " No pose was reported after the halt."}`
        : `The halt of ${what} was not confirmed by the arm${halted.error ? ` (${halted.error.message})` : ""}. Check the arm.`;
      return { message, pose, data: { halted: halted.halted, axes: args.joints ?? axisNames, pose: pose ?? null, error: halted.error?.toJSON() ?? null } };
    },
  });
}
