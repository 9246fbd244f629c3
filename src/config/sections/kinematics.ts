import { z } from "zod";
import { positive } from "../schemaPrimitives.js";

/** `kinematics:` and `moveit:`: which IK answers Cartesian targets (docs/kinematics.md). */
const moveitFile = z
  .object({
    group: z.string().min(1).describe("The MoveIt planning group (SRDF) whose tip is arm.tip_link."),
    service: z.string().min(1).default("/compute_ik").describe("MoveIt's compute_ik service."),
    solve_timeout_ms: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .multipleOf(1000, "MoveIt takes whole seconds: a multiple of 1000")
      .default(1000)
      .describe(
        "Mirrors MoveIt's IK `timeout`, whole seconds: move_group passes only `timeout.sec` to RobotState::setFromIK, and 0 there means the group's kinematics_solver_timeout.",
      ),
    call_timeout_ms: positive
      .default(3000)
      .describe("How long we wait for the answer (includes the search); past it the call is rejected, nothing sent."),
    avoid_collisions: z
      .boolean()
      .default(true)
      .describe(
        "Ask MoveIt for a collision-free solution (planning scene); its NO_IK_SOLUTION then also means only in collision.",
      ),
  })
  .strict()
  .describe("`kinematics: moveit` (ROS only): MoveIt's compute_ik service instead of the local solver.");

export const kinematicsSection = {
  kinematics: z
    .enum(["local", "moveit"])
    .default("local")
    .describe("Which IK answers Cartesian targets: the local solver or, on ROS, MoveIt's compute_ik."),
  moveit: moveitFile.optional(),
};
