import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { poseOf } from "../transport/poseOf.js";
import type { ArmKinematics } from "../kinematics/armKinematics.js";
import { planCartesianMove, planCartesianMoveRemote } from "../kinematics/planCartesianMove.js";
import type { RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";
import { observeTargets } from "../executor/toolContract/observeTargets.js";
import { speedOf, speedSchema } from "./speedSchema.js";
import { defineMotionTool, type MotionTool } from "../executor/toolContract/ToolDefinition.js";

export const CARTESIAN_RESULT_GUIDE =
  "Blocks until the motion ends. Results: status done (reached), failed (nothing moved; you may re-run), " +
  "stopped (it moved and stopped part-way, at the pose given, short of its target: plan the next motion from that pose; after a halt, only once an operator released it), " +
  "unknown (do NOT re-run; a person must confirm), blocked (a joint awaits an operator's confirmation, or the bridge is halted until an operator releases it), " +
  "rejected (nothing moved: out of reach, or the path would leave the safety envelope — the message names the closest reachable point or the offending link; pick another target), " +
  "skipped (no time left; nothing was sent).";

/** The frames a Cartesian target may be given in: the base link first, then links rigidly attached to it. */
export function frameSchema(kin: ArmKinematics): z.ZodOptional<z.ZodEnum<Record<string, string>>> {
  const frames = [kin.chain.baseLink, ...[...kin.chain.fixedFrames.keys()].filter((f) => f !== kin.chain.baseLink)];
  return z
    .enum(frames as [string, ...string[]])
    .optional()
    .describe(
      `The frame the coordinates are in (default ${kin.chain.baseLink}, the arm's base frame: z up). One of: ${frames.join(", ")}.`,
    );
}

/** `move_to_point {x, y, z, frame?, speed?}`: the tool tip to a point, by a joint move to the IK solution. */
export function moveToPointTool(config: ArmConfig, kin: ArmKinematics, remote?: RemoteIkSolver): MotionTool {
  const metres = (axis: string): z.ZodNumber =>
    z.number().finite().describe(`Target ${axis} of the tool tip (${kin.chain.tipLink}) in metres.`);
  const sixAxis = kin.chain.dof >= 6;
  return defineMotionTool({
    name: "move_to_point",
    description:
      `Move the tool tip (${kin.chain.tipLink}) to a point given in metres in the arm's base frame (${kin.chain.baseLink}: origin at the base, z up) unless frame names another. ` +
      (sixAxis
        ? "The tool keeps its current orientation when it can; otherwise the orientation is left free. "
        : `This arm has ${kin.chain.dof} axes, so only the position is controlled; the tool's orientation follows. `) +
      `The arm moves in joint space to the inverse-kinematics solution closest to its current joints; the whole path is checked against the safety envelope first. ${CARTESIAN_RESULT_GUIDE}`,
    args: z
      .object({ x: metres("x"), y: metres("y"), z: metres("z"), frame: frameSchema(kin), speed: speedSchema(config) })
      .strict(),
    blocking: true,
    resources: () => resourcesFor(config, kin.jointNames),
    timeoutMs: config.timeoutsMs.moveToPoint,
    onTimeout: "observe",
    plan: (args, ctx, signal) => {
      const goal = {
        position: [args.x, args.y, args.z] as const,
        orientation: undefined,
        frame: args.frame,
        orientationRequired: false,
      };
      const pose = poseOf(ctx.latestStatus());
      const speed = speedOf(args);
      return remote
        ? planCartesianMoveRemote(kin, remote, goal, pose, "move_to_point", speed, signal)
        : planCartesianMove(kin, goal, pose, "move_to_point", speed);
    },
    observe: observeTargets,
  });
}
