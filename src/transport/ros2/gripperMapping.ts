import type { GripperCommandGoal, GripperResult, ParallelGripperCommandGoal } from "./rclTypes.js";
import type { GripperSetup } from "./resolveRos2Setup.js";

/** armbridge's 0 (closed) .. 1 (open) → the controller's position (m or rad). */
export function gripperToController(gripper: GripperSetup, value01: number): number {
  return gripper.closedPosition + value01 * (gripper.openPosition - gripper.closedPosition);
}

/** The controller's position → armbridge's 0..1 scale (not clamped: an overshoot stays visible). */
export function gripperFromController(gripper: GripperSetup, position: number): number {
  return (position - gripper.closedPosition) / (gripper.openPosition - gripper.closedPosition);
}

/** A GripperCommand or ParallelGripperCommand goal, as configured. */
export function buildGripperGoal(gripper: GripperSetup, value01: number): GripperCommandGoal | ParallelGripperCommandGoal {
  const position = gripperToController(gripper, value01);
  switch (gripper.kind) {
    case "gripper_command":
      return { command: { position, max_effort: gripper.maxEffort } };
    case "parallel_gripper":
      // parallel_gripper_controller rejects a goal without exactly one position; effort is its max effort.
      return { command: { name: [gripper.joint], position: [position], velocity: [], effort: [gripper.maxEffort] } };
  }
}

/** The final gripper position a result reports, on armbridge's scale, if it carries one. */
export function gripperResultPosition(gripper: GripperSetup, result: GripperResult): number | undefined {
  const raw = result.state ? result.state.position[0] : result.position;
  return raw === undefined ? undefined : gripperFromController(gripper, raw);
}
