import type { LoggedError } from "./RosoutWatcher.js";

/**
 * franka_gripper's words for a width over the Hand's maximum, which is 0 until
 * the Hand is homed: libfranka's GripperState reports max_width 0 before
 * homing (frankarobotics/franka_ros#276), and gripper_action_server.cpp logs
 * "Commanding out of range width! max_width = … command = …" and aborts the
 * goal with an empty result (franka_ros2 jazzy @ 29cb85a6).
 */
const NOT_HOMED = /out of range width!?\s*max_width\s*=\s*0(?:\.0*)?(?![\d.])/i;

export const FRANKA_HOMING_ADVICE =
  "the Franka Hand is not homed: it reports a maximum width of 0 until it is, so franka_gripper refuses every opening. " +
  "Ask the operator to home it (Desk, or `ros2 action send_goal /franka_gripper/homing franka_msgs/action/Homing {}`); " +
  "gripper commands are refused until its fingers have moved";

/**
 * Whether the Franka Hand is known not to be homed, and the refusal that
 * follows. Set when franka_gripper logs an out-of-range width against a
 * maximum of 0; cleared when the fingers are seen away from where they were
 * then: nothing armbridge sends can move an un-homed Hand, and homing drives
 * the fingers through their stroke.
 */
export class FrankaHandHoming {
  #heldAt: number | undefined;

  /** Reads a failed command's logged errors; true when they say the Hand is not homed (then latched at `position`). */
  noteErrors(errors: readonly LoggedError[], position: number | undefined): boolean {
    if (!errors.some((e) => NOT_HOMED.test(e.msg))) return false;
    this.#heldAt = position ?? this.#heldAt ?? 0;
    return true;
  }

  /** The refusal for a gripper command while the Hand is not homed, given where its fingers are now (0..1). */
  refusal(position: number | undefined, tolerance: number): string | undefined {
    if (this.#heldAt === undefined) return undefined;
    if (position !== undefined && Math.abs(position - this.#heldAt) > tolerance) {
      this.#heldAt = undefined;
      return undefined;
    }
    return FRANKA_HOMING_ADVICE;
  }
}
