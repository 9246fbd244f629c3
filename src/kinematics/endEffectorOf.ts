import type { ArmConfig } from "../config/ArmConfig.js";
import { armKinematicsOf, jointVectorOf } from "./armKinematics.js";
import { positionOf, quaternionOf, rpyOf } from "./rigidTransform.js";

/**
 * The tool tip's pose by FK of a reported joint pose, for `get_arm_state`:
 * metres and radians in the base frame. Empty when no kinematics are
 * configured; null when the pose lacks a joint of the chain.
 */
export function endEffectorOf(
  config: ArmConfig,
  pose: Readonly<Record<string, number>> | undefined,
): Record<string, unknown> {
  const kin = armKinematicsOf(config);
  if (!kin) return {};
  const q = jointVectorOf(kin, pose);
  if (!q) return { end_effector: null };
  const tip = kin.chain.tip(q);
  const [x, y, z] = positionOf(tip);
  return {
    end_effector: {
      frame: kin.chain.baseLink,
      link: kin.chain.tipLink,
      position: { x, y, z },
      orientation: { ...rpyOf(tip), quaternion: quaternionOf(tip) },
    },
  };
}
