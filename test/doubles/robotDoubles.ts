import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import type { RclnodejsDoubleOptions } from "./SimulatedRosGraph.js";

const fixture = (name: string): string => readFileSync(join(packageRoot(), "test", "fixtures", "urdf", name), "utf8");

/** Every joint of a config's one arm controller. */
function armJoints(config: ArmConfig): string[] {
  return config.arm.controllers[0]?.joints.slice() ?? config.arm.joints.map((j) => j.name);
}

/**
 * Which trajectory controller ur_control.launch.py starts: `scaled` (ur_controllers'
 * ScaledJointTrajectoryController, the default up to ur_robot_driver 4.x: Humble, Jazzy, Kilted) or
 * `stock_jtc` (ur_robot_driver ≥ 6.0, Lyrical and Rolling: the stock joint_trajectory_controller reading
 * `speed_scaling.state_interface`, main @ 696e1a7b ur_robot_driver/config/ur_controllers.yaml).
 */
export type UrDriverRelease = "scaled" | "stock_jtc";

/**
 * ur_robot_driver's graph as ur_control.launch.py brings it up
 * (Universal_Robots_ROS2_Driver jazzy @ a16a2687, ur_robot_driver/config/ur_controllers.yaml):
 * scaled_joint_trajectory_controller on position commands, with
 * `constraints: {stopped_velocity_tolerance: 0.2, goal_time: 0.0, <joint>: {trajectory: 0.2, goal: 0.1}}`,
 * speed scaling from the hardware (the teach pendant's slider) and its
 * speed_scaling_state_broadcaster, a 500 Hz control loop (e-Series), and the
 * URDF on /robot_description. With a Robotiq 2F-85: the real driver's velocity state, never
 * updated (SimGripperController `never_updated`), under the controller settings armbridge ships
 * (launch/robotiq_gripper_controller.yaml); `robotiq: "upstream"` keeps ros2_robotiq_gripper's own
 * (main, robotiq_description/config/robotiq_controllers.yaml: allow_stalling true, stall_timeout
 * 0.05, goal_tolerance 0.02), under which every goal stalls 50 ms in.
 */
export function urDriverDouble(
  config: ArmConfig,
  speedScaling = 1,
  driver: UrDriverRelease = "scaled",
  robotiqSettings: "shipped" | "upstream" = "shipped",
): Partial<RclnodejsDoubleOptions> {
  const controller = config.ros2?.controllers[0];
  const name =
    controller?.name ?? (driver === "scaled" ? "scaled_joint_trajectory_controller" : "joint_trajectory_controller");
  const robotiq = config.arm.gripper && config.ros2?.gripper;
  return {
    // ur_robot_driver ≥ 6.0 is released for Lyrical and Rolling only: its controllers are ros2_controllers 6.x.
    ...(driver === "stock_jtc" ? { distro: "rolling" as const } : {}),
    controllers: [
      {
        name,
        actionName: controller?.actionName ?? `/${name}/follow_joint_trajectory`,
        joints: armJoints(config),
        ...(driver === "scaled"
          ? { kind: "ur_scaled" as const }
          : { kind: "jtc" as const, speedScalingStateInterface: "speed_scaling/speed_scaling_factor" }),
        pathTolerance: 0.2,
        defaultGoalTolerance: 0.1,
        stoppedVelocityTolerance: 0.2,
        defaultGoalTimeS: 0,
      },
    ],
    ...(robotiq
      ? {
          gripper: {
            actionName: robotiq.actionName,
            kind: robotiq.kind === "parallel_gripper" ? "parallel_gripper" : "gripper_command",
            joint: robotiq.joint,
            velocity: 0.4,
            velocityState: "never_updated" as const,
            ...(robotiqSettings === "shipped"
              ? robotiqShippedSettings()
              : { goalTolerance: 0.02, stallTimeoutS: 0.05, allowStalling: true }),
          },
        }
      : {}),
    speedScaling,
    speedScalingBroadcaster: true,
    urRobotState: {},
    controlPeriodS: 0.002,
    robotDescription: { urdf: fixture("ur5e.urdf") },
  };
}

/** launch/robotiq_gripper_controller.yaml, as the controller would read it. */
function robotiqShippedSettings(): { goalTolerance: number; stallTimeoutS: number; allowStalling: boolean } {
  const file = parseYaml(readFileSync(join(packageRoot(), "launch", "robotiq_gripper_controller.yaml"), "utf8")) as {
    robotiq_gripper_controller: { ros__parameters: Record<string, unknown> };
  };
  const p = file.robotiq_gripper_controller.ros__parameters;
  return {
    goalTolerance: Number(p.goal_tolerance),
    stallTimeoutS: Number(p.stall_timeout),
    allowStalling: p.allow_stalling === true,
  };
}

/**
 * franka_ros2's graph (frankarobotics/franka_ros2 jazzy @ 29cb85a6): fr3_arm_controller, a JTC on
 * effort command interfaces with position and velocity state (franka_fr3_moveit_config/config/
 * fr3_ros_controllers.yaml) — so goal velocity errors are checked and stock speed scaling does
 * not apply; the joint_state_broadcaster remapped to /franka/joint_states and a joint_state_publisher
 * aggregating it with /franka_gripper/joint_states into /joint_states at 30 Hz (franka_bringup
 * franka.launch.py); franka_gripper's node; a 1 kHz control loop; the URDF on /robot_description.
 */
export function frankaDouble(config: ArmConfig): Partial<RclnodejsDoubleOptions> {
  const controller = config.ros2?.controllers[0];
  const name = controller?.name ?? "fr3_arm_controller";
  return {
    controllers: [
      {
        name,
        actionName: controller?.actionName ?? `/${name}/follow_joint_trajectory`,
        joints: armJoints(config),
        commandInterface: "effort",
        velocityErrors: true,
      },
    ],
    jointStatePublisher: { sources: ["/franka/joint_states", "/franka_gripper/joint_states"], rateHz: 30 },
    controlPeriodS: 0.001,
    robotDescription: { urdf: fixture("fr3.urdf") },
  };
}
