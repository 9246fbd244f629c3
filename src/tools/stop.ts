import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { actuatorsOf, resourcesFor } from "../config/actuators.js";
import { resultMessages } from "../executor/calls/resultMessages.js";
import { poseOf } from "../transport/poseOf.js";
import { defineReadTool, type HaltTool, type ReadTool } from "../executor/toolContract/ToolDefinition.js";
import { namesOf } from "../validation/nameChoices.js";

/** `stop {joints?}`: halts now; bypasses the queue and the quarantine. */
export function stop(config: ArmConfig): ReadTool | HaltTool {
  const axisNames = actuatorsOf(config).map((a) => a.name);
  const joints = z
    .array(
      namesOf(z.enum(axisNames as [string, ...string[]]), {
        what: "joint",
        among: "the arm's axes (joints and gripper)",
      }),
    )
    .min(1)
    .max(axisNames.length)
    .optional()
    .describe(`Axes to halt (${axisNames.join(", ")}); omit to halt everything.`);
  return defineReadTool({
    name: "stop",
    description:
      "Halt motion now and hold position: the named joints, or every axis when none are named. Always allowed, never queued. " +
      "A halt LATCHES the bridge: every motion is refused (status blocked) until an operator releases it at the arm. " +
      "Returns the pose observed after halting: status done when the arm confirmed the halt; unknown when it did not (the arm may still be moving: ask the operator). " +
      "Motions it cut short end with status stopped, at the pose where they stopped.",
    args: z.object({ joints }).strict(),
    blocking: false,
    kind: "halt",
    timeoutMs: config.timeoutsMs.stop,
    // Arguments that do not parse still halt: the named joints when each is one of the arm's, else every axis.
    understood: (raw) => {
      const named =
        typeof raw === "object" && raw !== null && "joints" in raw ? joints.safeParse(raw.joints) : undefined;
      return named?.success && named.data ? { joints: [...new Set(named.data)] } : {};
    },
    run: async (args, ctx, signal) => {
      const { halt, result: halted } = await ctx.halt({ ...(args.joints ? { axes: args.joints } : {}), signal });
      const pose = poseOf(halted.status);
      const axes = args.joints ?? axisNames;
      const what = args.joints ? args.joints.join(", ") : "all axes";
      const message = halted.halted
        ? `Halted ${what}.${pose ? "" : " No pose was reported after the halt."} The bridge is latched (${halt.haltId}): every motion is refused until an operator releases it; tell the user.`
        : resultMessages.haltUnconfirmed(what, halted.error?.message ?? "no answer from the arm in time");
      return {
        message,
        pose,
        data: {
          halted: halted.halted,
          halt_id: halt.haltId,
          axes,
          pose: pose ?? null,
          error: halted.error?.toJSON() ?? null,
        },
        ...(halted.halted ? {} : { unconfirmed: { resources: resourcesFor(config, axes) } }),
      };
    },
  });
}
