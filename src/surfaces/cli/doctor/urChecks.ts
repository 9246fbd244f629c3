import type { ArmConfig } from "../../../config/ArmConfig.js";
import { isArmbridgeError } from "../../../errors.js";
import type { Rclnodejs, RclNode } from "../../../transport/ros2/rclTypes.js";
import { readRobotDescription } from "../../../transport/ros2/readRobotDescription.js";
import { UrRobotStatus, type UrArmCondition } from "../../../transport/ros2/UrRobotStatus.js";
import { fail, ok, warn, type DoctorCheck } from "./DoctorCheck.js";

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

/**
 * The `kinematics/hash` each UR model's nominal description carries
 * (UniversalRobots/Universal_Robots_ROS2_Description @ 2221ec0f,
 * config/<model>/default_kinematics.yaml). ur_common.xacro takes the hash of
 * whatever kinematics_parameters_file the description was built with, and
 * ur.ros2_control.xacro puts it in `<param name="kinematics/hash">`; the
 * driver compares it with the robot's own calibration at start-up
 * (hardware_interface.cpp, Universal_Robots_ROS2_Driver main @ 696e1a7b).
 */
const NOMINAL_UR_KINEMATICS: Readonly<Record<string, string>> = {
  calib_209549117540498681: "ur5",
  calib_12788084448423163542: "ur5e",
  calib_9122066269688285636: "ur3",
  calib_16756443741236045476: "ur3e",
  calib_17227329492635474227: "ur10",
  calib_5119701370761913513: "ur10e",
  calib_1935737212149401527: "ur16e",
  calib_4890363623803256388: "ur20",
  calib_12001109639981648826: "ur30",
};

const CALIBRATION_FIX =
  "extract the robot's calibration (ros2 launch ur_calibration calibration_correction.launch.py robot_ip:=<ip> target_filename:=$HOME/my_robot_calibration.yaml) and start the driver with kinematics_params_file:=$HOME/my_robot_calibration.yaml; see docs/ros2.md";

/** The UR kinematics check on the description the arm runs with: the robot description topic, or the config's URDF. */
export async function checkUrKinematics(rcl: Rclnodejs, node: RclNode, config: ArmConfig): Promise<DoctorCheck[]> {
  const description = config.arm.robotDescription;
  if (!description) return judgeUrKinematics(config.arm.urdfText);
  try {
    return judgeUrKinematics(await readRobotDescription(rcl, node, description.topic, description.timeoutMs));
  } catch (error) {
    return [
      fail(
        "description",
        isArmbridgeError(error) ? error.message : String(error),
        `start the robot's bringup (robot_state_publisher publishes ${description.topic})`,
      ),
    ];
  }
}

/**
 * Whether the robot description (as read from /robot_description) carries a
 * UR's own kinematics: without them every joint origin is the model's
 * nominal one, and Cartesian targets are off by millimetres. Nothing is said
 * of a description without UR's ros2_control hash (another robot).
 */
export function judgeUrKinematics(urdf: string | undefined): DoctorCheck[] {
  if (urdf === undefined) return [];
  const hash = /<param\s+name\s*=\s*"kinematics\/hash"\s*>\s*([^<\s]+)\s*<\/param>/.exec(urdf)?.[1];
  if (hash === undefined) return [];
  const model = NOMINAL_UR_KINEMATICS[hash];
  if (model !== undefined)
    return [
      warn(
        "ur kinematics",
        `the robot description carries the ${model}'s nominal kinematics (kinematics/hash ${hash}, ur_description's default_kinematics.yaml), not this robot's calibration: Cartesian targets may be off by millimetres`,
        CALIBRATION_FIX,
      ),
    ];
  return [ok("ur kinematics", `the robot description carries calibrated kinematics (kinematics/hash ${hash})`)];
}
