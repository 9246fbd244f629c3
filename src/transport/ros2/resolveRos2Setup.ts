import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import { refusePassthroughController } from "./refusePassthrough.js";
import {
  defaultTrajectoryAction,
  ros2OptionsFileSchema,
  type Ros2GripperOptions,
  type Ros2Options,
} from "./Ros2Options.js";

export interface TrajectoryControllerSetup {
  readonly name: string;
  readonly actionName: string;
  readonly joints: readonly string[];
}

export interface GripperSetup extends Ros2GripperOptions {
  /** The armbridge axis name of the gripper (arm.gripper.name). */
  readonly axis: string;
}

/** Everything the ROS transport needs, checked once against the arm config. */
export interface Ros2Setup {
  readonly options: Ros2Options;
  readonly controllers: readonly TrajectoryControllerSetup[];
  readonly controllerOfJoint: ReadonlyMap<string, TrajectoryControllerSetup>;
  readonly gripper: GripperSetup | undefined;
}

/** The controller name assumed when the arm config lists none (ros2_control's usual JTC name). */
export const DEFAULT_CONTROLLER_NAME = "joint_trajectory_controller";

/**
 * Joins the arm config's controllers (which joints, hence lock keys) with the
 * ROS options (which action). Returns the arm config to run with: when it
 * lists no controllers, one JTC for all joints is added, so the executor's
 * `controller:<name>` lock key exists — JTC preempts, and the lock table must
 * know which motions share a controller.
 */
export function resolveRos2Setup(config: ArmConfig, options: Ros2Options): { config: ArmConfig; setup: Ros2Setup } {
  const issues: string[] = [];
  const gripperName = config.arm.gripper?.name;
  const armControllers =
    config.arm.controllers.length > 0
      ? config.arm.controllers
      : [{ name: DEFAULT_CONTROLLER_NAME, joints: config.arm.joints.map((j) => j.name) }];

  const actionOf = new Map(options.controllers.map((c) => [c.name, c.actionName]));
  for (const name of actionOf.keys()) {
    if (!armControllers.some((c) => c.name === name)) issues.push(`ros2 controller ${name} is not in arm.controllers`);
  }

  const controllers: TrajectoryControllerSetup[] = armControllers.map((c) => ({
    name: c.name,
    actionName: actionOf.get(c.name) ?? defaultTrajectoryAction(c.name),
    joints: c.joints,
  }));

  const armJoints = new Set(config.arm.joints.map((j) => j.name));
  const controllerOfJoint = new Map<string, TrajectoryControllerSetup>();
  for (const c of controllers) {
    if (c.joints.length === 0) issues.push(`controller ${c.name} has no joints`);
    for (const joint of c.joints) {
      if (!armJoints.has(joint) && joint !== gripperName)
        issues.push(`controller ${c.name} lists unknown joint ${joint}`);
      if (joint === gripperName)
        issues.push(
          `controller ${c.name} lists the gripper ${joint}; on ROS the gripper is driven by its gripper action`,
        );
      const other = controllerOfJoint.get(joint);
      if (other) issues.push(`joint ${joint} is in two controllers: ${other.name} and ${c.name}`);
      controllerOfJoint.set(joint, c);
    }
  }
  for (const j of config.arm.joints) {
    if (!controllerOfJoint.has(j.name)) issues.push(`joint ${j.name} is in no controller`);
  }

  let gripper: GripperSetup | undefined;
  if (config.arm.gripper) {
    const g = options.gripper ?? ros2OptionsFileSchema.parse({ gripper: {} }).gripper;
    if (g) gripper = { ...g, axis: config.arm.gripper.name };
  } else if (options.gripper) {
    issues.push("ros2.gripper is set but the arm config has no gripper");
  }

  if (issues.length > 0) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: "ros2", issues });
  for (const c of controllers) refusePassthroughController(c.name, c.actionName);
  return {
    config: { ...config, arm: { ...config.arm, controllers: armControllers } },
    setup: { options, controllers, controllerOfJoint, gripper },
  };
}
