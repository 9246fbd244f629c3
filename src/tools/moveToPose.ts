import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { resourcesFor } from "../config/actuators.js";
import { poseOf } from "../transport/poseOf.js";
import type { ArmKinematics } from "../kinematics/armKinematics.js";
import { planCartesianMove, planCartesianMoveRemote } from "../kinematics/planCartesianMove.js";
import type { RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";
import { fromPositionQuaternion, fromPositionRpy, type Transform } from "../kinematics/rigidTransform.js";
import { unitVector } from "../geometry/unitVector.js";
import { CARTESIAN_RESULT_GUIDE, frameSchema } from "./moveToPoint.js";
import { speedOf, speedSchema } from "./speedSchema.js";
import { observeTargets } from "../executor/toolContract/observeTargets.js";
import { defineMotionTool, type MotionTool } from "../executor/toolContract/ToolDefinition.js";

const m = (axis: string): z.ZodNumber => z.number().finite().describe(`${axis} in metres.`);
const rad = (what: string): z.ZodNumber =>
  z
    .number()
    .finite()
    .min(-2 * Math.PI)
    .max(2 * Math.PI)
    .describe(`${what} in radians.`);

const orientationSchema = z
  .union([
    z
      .object({
        roll: rad("Rotation about the frame's x axis"),
        pitch: rad("Rotation about its y axis"),
        yaw: rad("Rotation about its z axis"),
      })
      .strict(),
    z
      .object({ x: z.number().finite(), y: z.number().finite(), z: z.number().finite(), w: z.number().finite() })
      .strict()
      .superRefine((q, ctx) => {
        const unit = unitVector([q.x, q.y, q.z, q.w], 1e-6);
        if (!unit.ok)
          ctx.addIssue({
            code: "custom",
            message: `the quaternion ${unit.message}: give a unit quaternion (x, y, z, w)`,
          });
      })
      .describe("A unit quaternion (x, y, z, w); it is normalised."),
  ])
  .describe(
    "The tool's orientation in the same frame: {roll, pitch, yaw} (radians, fixed axes x then y then z, as in URDF and ROS) or a quaternion {x, y, z, w}.",
  );

/** `move_to_pose {position, orientation, frame?, speed?}` (six or more axes): the tool tip to a full pose. */
export function moveToPoseTool(config: ArmConfig, kin: ArmKinematics, remote?: RemoteIkSolver): MotionTool {
  return defineMotionTool({
    name: "move_to_pose",
    description:
      `Move the tool tip (${kin.chain.tipLink}) to a position (metres) and orientation in the arm's base frame (${kin.chain.baseLink}: origin at the base, z up) unless frame names another. ` +
      `The arm moves in joint space to the inverse-kinematics solution closest to its current joints; the whole path is checked against the safety envelope first. ${CARTESIAN_RESULT_GUIDE}`,
    args: z
      .object({
        position: z
          .object({ x: m("x"), y: m("y"), z: m("z") })
          .strict()
          .describe("Target position of the tool tip, metres."),
        orientation: orientationSchema,
        frame: frameSchema(kin),
        speed: speedSchema(config),
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
      // The schema already refused such a quaternion; were one to get here, "no orientation" would mean "keep the current one" — never that.
      if (!orientation)
        return {
          targets: {},
          speed: speedOf(args),
          refusal: {
            ok: false,
            code: "ARMB_ERR_ARGS_INVALID",
            issues: [{ path: "orientation", code: "custom", message: "the quaternion cannot be normalised" }],
          },
        };
      const goal = { position: p, orientation, frame: args.frame, orientationRequired: true };
      const pose = poseOf(ctx.latestStatus());
      const speed = speedOf(args);
      return remote
        ? planCartesianMoveRemote(kin, remote, goal, pose, "move_to_pose", speed, signal)
        : planCartesianMove(kin, goal, pose, "move_to_pose", speed);
    },
    observe: observeTargets,
  });
}
