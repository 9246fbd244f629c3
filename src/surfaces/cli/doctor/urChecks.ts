import type { Rclnodejs, RclNode } from "../../../transport/ros2/rclTypes.js";
import { UrRobotStatus, type UrArmCondition } from "../../../transport/ros2/UrRobotStatus.js";
import { fail, ok, type DoctorCheck } from "./DoctorCheck.js";

/** How long the doctor listens for the latched UR status topics (they arrive on the first spin after discovery). */
const LISTEN_MS = 1500;

/**
 * A UR's readiness, read from ur_robot_driver's io_and_status_controller:
 * safety mode, robot mode, the External Control program. Nothing is said on
 * a graph without those topics (another robot, or ur_dashboard_msgs missing).
 */
export async function checkUrStatus(rcl: Rclnodejs, node: RclNode): Promise<DoctorCheck[]> {
  const status = new UrRobotStatus({ rcl, node, warn: () => undefined });
  try {
    status.start();
    await new Promise((resolve) => setTimeout(resolve, LISTEN_MS));
    return judgeUrStatus(status.readings(), status.condition());
  } finally {
    status.close();
  }
}

export function judgeUrStatus(
  readings: ReturnType<UrRobotStatus["readings"]>,
  condition: UrArmCondition | undefined,
): DoctorCheck[] {
  if (Object.keys(readings).length === 0) return [];
  const seen = [
    readings.safetyMode !== undefined ? `safety mode ${readings.safetyMode}` : undefined,
    readings.robotMode !== undefined ? `robot mode ${readings.robotMode}` : undefined,
    readings.programRunning !== undefined
      ? `program ${readings.programRunning ? "running" : "not running"}`
      : undefined,
  ].filter((x) => x !== undefined);
  if (condition) return [fail("ur", `${condition.detail} (${seen.join(", ")})`, condition.advice)];
  return [ok("ur", seen.join(", "))];
}
