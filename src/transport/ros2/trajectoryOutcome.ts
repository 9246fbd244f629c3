import { deviceText } from "../../validation/deviceText.js";
import type { ArmActionState } from "../Transport.js";
import {
  FjtErrorCode,
  GoalStatus,
  type FollowJointTrajectoryFeedback,
  type FollowJointTrajectoryResult,
} from "./rclTypes.js";

/**
 * JTC's result strings for a goal preempted by a newer goal: Jazzy ≥ 4.41.0
 * aborts it with the first, Humble and Jazzy < 4.41.0 cancel it with the
 * second (ros-controls/ros2_controllers joint_trajectory_controller.cpp,
 * preempt_active_goal, tags 4.41.0 @ b69445a5 and 4.40.1 @ 31015e0a).
 */
const PREEMPTION_TEXTS = ["preempted by new incoming action", "cancelled due to new incoming action"];

/**
 * on_deactivate's text. The same INVALID_GOAL code goes with it, under
 * CANCELED on 2.32.0–2.41.0 and 4.4.0–4.20.0 ("[JTC] Cancel goal in
 * on_deactivate (#962)") and ABORTED from 2.42.0 / 4.21.0 (#1517): either
 * way the controller was switched off under the goal — a fault, not a stop.
 */
const DEACTIVATION_TEXT = "during deactivate transition";

export interface TrajectoryOutcome {
  readonly state: ArmActionState;
  readonly detail: string;
}

/**
 * A FollowJointTrajectory goal's outcome, judged by goal status, never by
 * error_code alone: JTC answers a cancelled goal with error_code 0 too.
 *
 * PATH_TOLERANCE_VIOLATED (−4): JTC found a joint farther from its planned
 * path than constraints.<joint>.trajectory (UR ships 0.2 rad) while moving —
 * the arm could not follow (blocked, collision, overload) — and held where it
 * was. Its text names no joint; the last feedback's error does, so the detail
 * says which joint was how far behind.
 */
export function trajectoryOutcome(
  status: number | undefined,
  result: Partial<FollowJointTrajectoryResult>,
  actionName: string,
  lastFeedback: FollowJointTrajectoryFeedback | undefined,
): TrajectoryOutcome {
  const code = result.error_code ?? 0;
  // error_string is the controller's text: quoted and bounded as device text wherever a model reads it.
  const text = `${actionName}: status ${status ?? "?"}, error_code ${code}${result.error_string ? ` ${deviceText(`the controller behind ${actionName}`, result.error_string)}` : ""}`;
  const deactivated = code === FjtErrorCode.INVALID_GOAL && result.error_string?.includes(DEACTIVATION_TEXT) === true;
  // `status` is a number from the wire: anything but the three terminal codes is a fault.
  if (status === GoalStatus.SUCCEEDED) {
    return code === FjtErrorCode.SUCCESSFUL ? { state: "reached", detail: text } : { state: "faulted", detail: text };
  }
  if (status === GoalStatus.CANCELED) {
    return deactivated
      ? { state: "faulted", detail: `${text}: the controller was switched off under the goal` }
      : { state: "stopped", detail: text };
  }
  if (status === GoalStatus.ABORTED) {
    if (code === FjtErrorCode.PATH_TOLERANCE_VIOLATED)
      return { state: "stalled", detail: `${text}: ${pathDeviation(lastFeedback)}` };
    if (code === FjtErrorCode.GOAL_TOLERANCE_VIOLATED) return { state: "stalled", detail: text };
    // INVALID_GOAL is a preemption only with JTC's preemption text; a deactivated controller
    // (controller switch, E-stop) sends the same code, and that is a fault.
    if (code === FjtErrorCode.INVALID_GOAL && PREEMPTION_TEXTS.some((t) => result.error_string?.includes(t)))
      return { state: "stopped", detail: text };
  }
  return { state: "faulted", detail: text };
}

/** Which joint the last feedback shows farthest from its planned path, in words. */
function pathDeviation(feedback: FollowJointTrajectoryFeedback | undefined): string {
  const what =
    "a joint fell farther behind its planned path than the controller's path tolerance allows (blocked, a collision or overload), and the controller held where it was";
  const errors = feedback?.error?.positions;
  if (!feedback || !errors || errors.length === 0) return what;
  let worst = 0;
  for (let i = 1; i < errors.length; i++) if (Math.abs(errors[i] ?? 0) > Math.abs(errors[worst] ?? 0)) worst = i;
  const joint = feedback.joint_names[worst] ?? `joint ${worst}`;
  return `${what}; the last feedback had ${joint} ${Math.abs(errors[worst] ?? 0).toFixed(3)} off its path`;
}
