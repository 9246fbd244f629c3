import type { ArmConfig } from "../../config/ArmConfig.js";
import { armKinematicsOf, jointVectorOf } from "../../kinematics/armKinematics.js";
import { positionOf } from "../../kinematics/rigidTransform.js";
import type { ArmView } from "./renderScene.js";

/** What the simulated camera draws of the arm in `pose`: FK of every link (the URDF's), and the gripper. Undefined without kinematics or a full pose. */
export function armViewOf(config: ArmConfig, pose: Readonly<Record<string, number>> | undefined): ArmView | undefined {
  const kin = armKinematicsOf(config);
  if (!kin) return undefined;
  const q = jointVectorOf(kin, pose);
  if (!q) return undefined;
  const frames = kin.chain.frames(q);
  const base = kin.chain.fixedFrames.get(kin.chain.baseLink);
  const links = [
    base ? positionOf(base) : ([0, 0, 0] as [number, number, number]),
    ...frames.links.map((t) => positionOf(t)),
  ];
  const tip = kin.chain.tip(q);
  const gripperName = config.arm.gripper?.name;
  return {
    links,
    // Column 1 of the column-major 4×4: the tool's y axis in the base frame.
    fingerAxis: [tip[4] ?? 0, tip[5] ?? 1, tip[6] ?? 0],
    gripper: gripperName === undefined ? undefined : pose?.[gripperName],
  };
}
