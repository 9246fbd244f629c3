import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { poseOf } from "../transport/poseOf.js";
import type { ArmKinematics } from "../kinematics/armKinematics.js";
import { planCartesianMove, planCartesianMoveRemote } from "../kinematics/planCartesianMove.js";
import type { RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";
import { fromPositionQuaternion, fromPositionRpy, type Transform } from "../kinematics/rigidTransform.js";
import { CARTESIAN_RESULT_GUIDE, cartesianSpeedSchema, frameSchema } from "./moveToPoint.js";
import { observeTargets } from "./observeTargets.js";
import { defineMotionTool, type MotionTool } from "./ToolDefinition.js";

const m = (axis: string): z.ZodNumber => z.number().finite().describe(`${axis} in metres.`);
const rad = (what: string): z.ZodNumber => z.number().finite().min(-2 * Math.PI).max(2 * Math.PI).describe(`${what} in radians.`);

const orientationSchema = z
  .union([
    z.object({ roll: rad("Rotation about the frame's x axis"), pitch: rad("Rotation about its y axis"), yaw: rad("Rotation about its z axis") }).strict(),
    z
      .object({ x: z.number().finite(), y: z.number().finite(), z: z.number().finite(), w: z.number().finite() })
      .strict()
      .refine((q) => Math.hypot(q.x, q.y, q.z, q.w) > 1e-6, { message: "a quaternion cannot be zero" })
      .describe("A unit quaternion (x, y, z, w); it is normalised."),
  ])
  .describe("The tool's orientation in the same frame: {roll, pitch, yaw} (radians, fixed axes x then y then z, as in URDF and ROS) or a quaternion {x, y, z, w}.");

/** `move_to_pose {position, orientation, frame?, speed?}` (six or more axes): the tool tip to a full pose. */
export function moveToPoseTool(config: ArmConfig, kin: ArmKinematics, remote?: RemoteIkSolver): MotionTool {
  return defineMotionTool({
    name: "move_to_pose",
    description:
      `Move the tool tip (${kin.chain.tipLink}) to a position (metres) and orientation in the arm's base frame (${kin.chain.baseLink}: origin at the base, z up) unless frame names another. ` +
      `The arm moves in joint space to the inverse-kinematics solution closest to its current joints; the whole path is checked against the safety envelope first. ${CARTESIAN_RESULT_GUIDE}`,
    args: z
      .object({
        position: z.object({ x: m("x"), y: m("y"), z: m("z") }).strict().describe("Target position of the tool tip, metres."),
        orientation: orientationSchema,
        frame: frameSchema(kin),
        speed: cartesianSpeedSchema,
      })
      .strict(),
    blocking: true,
    resources: () => resourcesFor(config, kin.jointNames),
    timeoutMs: config.timeoutsMs.moveToPose,
    onTimeout: "observe",
    plan: (args, ctx, signal) => {
      const p = [args.position.x, args.position.y, args.position.z] as const;
      const o = args.orientation;
      const orientation: Transform | undefined = "roll" in o ? fromPositionRpy(p, o) : fromPositionQuaternion(p, o);
      const goal = { position: p, orientation, frame: args.frame, orientationRequired: true };
      const pose = poseOf(ctx.transport.latestStatus());
      const speed = args.speed ?? 0.5;
      return remote ? planCartesianMoveRemote(kin, remote, goal, pose, "move_to_pose", speed, signal) : planCartesianMove(kin, goal, pose, "move_to_pose", speed);
    },
    observe: observeTargets,
  });
}
