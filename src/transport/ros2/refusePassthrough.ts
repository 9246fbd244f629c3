import { ArmbridgeError } from "../../errors.js";

const PASSTHROUGH = "passthrough_trajectory_controller";

/**
 * UR's passthrough_trajectory_controller (ur_controllers, on Humble, Jazzy and
 * main: Universal_Robots_ROS2_Driver main @ 696e1a7b,
 * passthrough_trajectory_controller.cpp goal_received_callback) rejects a goal
 * while a trajectory runs ("Can't accept new trajectory. A trajectory is
 * already executing."), so the hold goal a halt sends over a running motion
 * would be refused and the arm would not stop. It is known by its name or by
 * its parameters: speed_scaling_interface_name and tf_prefix with no
 * command_interfaces (passthrough_trajectory_controller_parameters.yaml; the
 * scaled controller and stock JTC declare command interfaces).
 */
export function refusePassthroughController(
  controller: string,
  actionName: string,
  params?: ReadonlyMap<string, unknown>,
): void {
  const byName = controller.includes(PASSTHROUGH) || actionName.includes(PASSTHROUGH);
  const byParameters =
    params !== undefined &&
    params.has("speed_scaling_interface_name") &&
    params.has("tf_prefix") &&
    !params.has("command_interfaces");
  if (!byName && !byParameters) return;
  throw new ArmbridgeError("ARMB_ERR_ROS_CONTROLLER_UNSUITABLE", {
    controller,
    reason: `it is UR's passthrough trajectory controller (${byName ? "by its name" : "by its parameters"}), which rejects a goal while a trajectory runs, so a halt could not stop the arm`,
    fix: "use scaled_joint_trajectory_controller (joint_trajectory_controller on ur_robot_driver ≥ 6.0): switch controllers with `ros2 control switch_controllers` or launch with initial_joint_controller:=scaled_joint_trajectory_controller, and name it in the config",
  });
}
