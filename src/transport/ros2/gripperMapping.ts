import type { GripperCommandGoal, GripperResult, ParallelGripperCommandGoal } from "./rclTypes.js";
import type { GripperSetup } from "./resolveRos2Setup.js";

/** armbridge's 0 (closed) .. 1 (open) → the controller's position (m or rad; franka: one finger, half the width). */
export function gripperToController(gripper: GripperSetup, value01: number): number {
  return gripper.closedPosition + value01 * (gripper.openPosition - gripper.closedPosition);
}

/** The controller's position → armbridge's 0..1 scale (not clamped: an overshoot stays visible). */
export function gripperFromController(gripper: GripperSetup, position: number): number {
  return (position - gripper.closedPosition) / (gripper.openPosition - gripper.closedPosition);
}

/** The controller's stroke (units per 1.0 on armbridge's scale). */
export function gripperStroke(gripper: GripperSetup): number {
  return Math.abs(gripper.openPosition - gripper.closedPosition);
}

/**
 * A GripperCommand or ParallelGripperCommand goal, as configured. franka_gripper
 * takes the same GripperCommand, with `position` half the width it moves to
 * (target width = 2 × command.position, gripper_action_server.cpp
 * onExecuteGripperCommand): the per-finger position its /joint_states reports.
 */
export function buildGripperGoal(
  gripper: GripperSetup,
  value01: number,
): GripperCommandGoal | ParallelGripperCommandGoal {
  const position = gripperToController(gripper, value01);
  if (gripper.kind === "parallel_gripper") {
    // parallel_gripper_controller rejects a goal without exactly one position; effort is its max effort.
    return { command: { name: [gripper.joint], position: [position], velocity: [], effort: [gripper.maxEffort] } };
  }
  return { command: { position, max_effort: gripper.maxEffort } };
}

/**
 * The final gripper position a result reports, in controller units. A
 * ParallelGripperCommand result carries a JointState; a GripperCommand one a
 * position — which franka_gripper fills with the *width* (its
 * current_gripper_state_.width), twice the per-finger position.
 */
export function gripperResultPosition(result: GripperResult, franka: boolean): number | undefined {
  const raw = result.state ? result.state.position[0] : result.position;
  if (raw === undefined) return undefined;
  return franka ? raw / 2 : raw;
}
