import { HALT_FRAME_ID } from "../../src/transport/ros2/Halter.js";
import type { GoalRecord } from "./simGoalHandles.js";

/** Whether a goal the double received is one of armbridge's hold goals (a stop, not a motion). */
export function isHaltGoal(record: GoalRecord): boolean {
  return (
    (record.goal as { trajectory?: { header?: { frame_id?: string } } } | undefined)?.trajectory?.header?.frame_id ===
    HALT_FRAME_ID
  );
}

/** Motions the arm started: goals accepted, our hold goals (stops) not counted. */
export function motionGoals(records: readonly GoalRecord[]): GoalRecord[] {
  return records.filter((r) => !isHaltGoal(r));
}

/** Goals cut short by another client's goal: preempted, and not by one of our hold goals. */
export function preemptedByOthers(records: readonly GoalRecord[]): GoalRecord[] {
  return records.filter((r) => r.preemptedBy !== undefined && !isHaltGoal(r.preemptedBy));
}
