import type { Actuator } from "../../config/actuators.js";

/**
 * `ros2.joint_limit_margin_rad`: the first joint target that lies closer
 * than `margin` to its configured min or max, described with the nearest
 * target that would be accepted, or undefined when every target keeps it.
 *
 * Why a margin at all: the FR3 lowers each joint's velocity limit as the joint
 * nears its position limit, v ≤ −c + √(k·(q_max − q)) with per-joint c and k
 * (computeUpperLimitsJointVelocity / computeLowerLimitsJointVelocity,
 * frankarobotics/libfranka include/franka/rate_limiting.h @ 458b47e6), which
 * reaches 0 at c²/k before q_max. A move that brakes at a constant a into a
 * target q_t runs at √(2a·(q_t − q)); that stays under the limit only when
 * q_max − q_t ≥ c²/(k − 2a). Grippers have no such limit and are not checked.
 */
export function jointLimitMarginViolation(
  targets: Readonly<Record<string, number>>,
  actuators: ReadonlyMap<string, Actuator>,
  margin: number,
): string | undefined {
  if (!(margin > 0)) return undefined;
  for (const [axis, target] of Object.entries(targets)) {
    const a = actuators.get(axis);
    if (!a || a.kind !== "joint") continue;
    const nearMax = a.max - target < margin;
    const nearMin = target - a.min < margin;
    if (!nearMax && !nearMin) continue;
    const limit = nearMax ? a.max : a.min;
    const closest = nearMax ? a.max - margin : a.min + margin;
    return (
      `${axis} target ${round(target)} rad is within ros2.joint_limit_margin_rad ${margin} of its ${nearMax ? "max" : "min"} ` +
      `${limit}: near its position limits the arm lowers the joint's velocity limit (toward 0 at the limit) and a move ` +
      `braking into such a target can exceed it and stop the arm with a reflex; choose a target no ` +
      `${nearMax ? "higher" : "lower"} than ${round(closest)} rad`
    );
  }
  return undefined;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
