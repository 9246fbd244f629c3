import type { ArmActionState } from "../Transport.js";
import { gripperFromController, gripperResultPosition } from "./gripperMapping.js";
import { GoalStatus, type GripperResult } from "./rclTypes.js";
import type { GripperSetup } from "./resolveRos2Setup.js";

/** The gripper semantics in force once `auto` is resolved (see GripperBehaviour in ControllerFacts). */
export type GripperBehaviour = "gripper_command" | "parallel_gripper" | "franka";

/** What a gripper goal set out to do, in controller units. */
export interface GripperRunContext {
  readonly behaviour: GripperBehaviour;
  readonly gripper: GripperSetup;
  /** Where the gripper was when the goal was sent. */
  readonly start: number;
  readonly target: number;
  /** Below this (controller units) a difference of positions is noise: tolerances.gripper on the stroke. */
  readonly tolerance: number;
  /** franka_gripper's grasp epsilon (outer), in width (m): a grasp ending farther than this from its width has failed. */
  readonly graspEpsilonOuter: number;
}

export interface GripperOutcome {
  readonly state: ArmActionState;
  readonly detail: string;
  /**
   * franka_gripper only: the command failed without a reason in the result.
   * Its node logs the libfranka exception on /rosout; the caller looks there
   * and, finding one, reports a fault with that cause instead of this state.
   */
  readonly causeOnRosout?: boolean;
}

/**
 * A gripper goal's outcome from its status and result.
 *
 * gripper_action_controller / parallel_gripper_controller
 * (gripper_action_controller_impl.hpp check_for_success, ros2_controllers
 * 4.42.1): a stall is |velocity| ≤ stall_velocity_threshold for
 * stall_timeout, reported `stalled: true, reached_goal: false` — aborted, or
 * succeeded with allow_stalling. A stall while closing is the gripper closing
 * on something, once it has closed some way: `grasped`, where it stopped;
 * while opening, or without having moved, it is `stalled`.
 *
 * The controller keeps commanding the goal's position at max_effort after a
 * stall, so a gripper that stalled on an object goes on pressing: it holds it.
 *
 * franka_gripper (gripper_action_server.cpp, franka_ros2 jazzy @ 29cb85a6):
 * `stalled` is never set; a close is libfranka's grasp(width, speed, force,
 * ε 0.005, 0.005), which fails (`reached_goal: false`, ABORTED) when the
 * fingers stop more than ε from the width — closing on an object. The result's
 * `position` is the width. A grasp outside its ε is no grasp to the gripper
 * (libfranka Gripper::grasp, GripperState::is_grasped): it keeps no grasp
 * force on what it met, so the words say it closed on an object and do not
 * say it holds it. A grasp that succeeded short of a close (a thin object, or
 * a `default_grasp_epsilon.outer` raised to take any object) does hold it. A
 * libfranka exception ends the goal the same way as a failed grasp, its
 * reason only in the node's log: a failed close whose fingers stopped where
 * they started may be either, so the caller checks /rosout.
 *
 * A `grasped` detail starts with the words for the model, up to the first
 * ";": "closed on an object at …", and "and holds it" only where it does.
 */
export function gripperOutcome(
  status: number | undefined,
  result: Partial<GripperResult>,
  ctx: GripperRunContext,
  actionName: string,
): GripperOutcome {
  const franka = ctx.behaviour === "franka";
  const position = gripperResultPosition({ stalled: false, reached_goal: false, ...result }, franka);
  const text = `${actionName}: status ${status ?? "?"}, reached_goal ${String(result.reached_goal)}${franka ? "" : `, stalled ${String(result.stalled)}`}`;
  const closing = towardClosed(ctx, ctx.target) > ctx.tolerance;
  if (status === GoalStatus.CANCELED) return { state: "stopped", detail: text };
  if (franka) return frankaOutcome(status, result, position, ctx, text, closing);
  if (status === GoalStatus.SUCCEEDED && !(result.stalled && !result.reached_goal))
    return { state: "reached", detail: text };
  if ((status === GoalStatus.SUCCEEDED || status === GoalStatus.ABORTED) && result.stalled) {
    // Closing, and it did close some way before stalling: it met something. A stall where it stood
    // (jammed, or blocked at the start) is no grasp.
    const closedSome = position !== undefined && towardClosed(ctx, position) > ctx.tolerance;
    if (closing && closedSome)
      return { state: "grasped", detail: `closed on an object at ${where(ctx, position)} and holds it; ${text}` };
    return { state: "stalled", detail: text };
  }
  return { state: "faulted", detail: text };
}

function frankaOutcome(
  status: number | undefined,
  result: Partial<GripperResult>,
  position: number | undefined,
  ctx: GripperRunContext,
  text: string,
  closing: boolean,
): GripperOutcome {
  const targetWidth = 2 * ctx.target;
  if (status === GoalStatus.SUCCEEDED && result.reached_goal) {
    // A successful grasp that stopped short of the width asked for: within the grasp's ε, on an object it now grips.
    const width = position === undefined ? undefined : 2 * position;
    const shortOfIt = closing && width !== undefined && width > targetWidth + 2 * ctx.tolerance;
    if (shortOfIt)
      return {
        state: "grasped",
        detail: `closed on an object at width ${width.toFixed(3)} m and holds it (a grasp within franka_gripper's ε); ${text}`,
      };
    return { state: "reached", detail: text };
  }
  if (status !== GoalStatus.ABORTED || position === undefined) return { state: "faulted", detail: text };
  const width = 2 * position;
  const outOfRange = !result.reached_goal && width === 0 && Math.abs(ctx.start) > ctx.tolerance;
  if (outOfRange)
    return {
      state: "faulted",
      detail: `${text}: refused before moving (the width was out of range, or the gripper gave no state)`,
      // franka_gripper logs which: "Commanding out of range width! max_width = …" (0 on a Hand not homed).
      causeOnRosout: true,
    };
  const moved = Math.abs(position - ctx.start) > ctx.tolerance;
  if (closing && width > targetWidth + ctx.graspEpsilonOuter) {
    // Short of the width by more than the grasp's epsilon: the fingers met something. If they never
    // moved, a libfranka error looks the same in the result: the caller asks /rosout.
    const words =
      `closed on an object at width ${width.toFixed(3)} m, but franka_gripper counts it no grasp ` +
      `(more than its ε ${ctx.graspEpsilonOuter} m from the width ${targetWidth.toFixed(3)} m asked for) and keeps no grasp force on it`;
    return { state: "grasped", detail: `${words}; ${text}`, ...(moved ? {} : { causeOnRosout: true }) };
  }
  return {
    state: "faulted",
    detail: `${text}: the gripper ${moved ? "moved" : "did not move"} and stopped at width ${width.toFixed(4)} m`,
    causeOnRosout: true,
  };
}

/**
 * How far `position` lies from the start toward closed, in controller units. Which way closes is the
 * config's (closed_position vs open_position), per gripper: franka_gripper and most parallel grippers
 * close toward 0, a Robotiq 2F-85 on ros2_robotiq_gripper closes upward (0.0 open, 0.8 closed).
 */
function towardClosed(ctx: GripperRunContext, position: number): number {
  const closesUp = ctx.gripper.closedPosition > ctx.gripper.openPosition;
  return closesUp ? position - ctx.start : ctx.start - position;
}

function where(ctx: GripperRunContext, position: number | undefined): string {
  if (position === undefined) return "an unreported position";
  return `${gripperFromController(ctx.gripper, position).toFixed(3)} of its opening (${ctx.gripper.joint} ${position.toFixed(4)})`;
}
