import type { ArmStatus } from "./Transport.js";

/** Axis → position of a status (rad; the gripper 0..1), or undefined before the first status. */
export function poseOf(status: ArmStatus | undefined): Record<string, number> | undefined {
  if (!status) return undefined;
  const pose: Record<string, number> = {};
  for (const [name, axis] of Object.entries(status.axes)) pose[name] = axis.position;
  return pose;
}
