"""Gazebo (gz sim) with gz_ros2_control driving a joint_trajectory_controller,
and armbridge on top of it.

Wiring, as in gz_ros2_control's demos:
  robot_description (URDF with a <ros2_control> block using
  gz_ros2_control/GazeboSimSystem and the <gazebo> plugin
  gz_ros2_control::GazeboSimROS2ControlPlugin pointing at controllers_yaml)
  → robot_state_publisher → ros_gz_sim create → spawner joint_state_broadcaster
  → spawner joint_trajectory_controller (and gripper_controller) → armbridge.

Arguments:
  description_file  a URDF or xacro of your arm, with the ros2_control tags above
  controllers_yaml  controller_manager parameters (joint_state_broadcaster,
                    joint_trajectory_controller with the arm's joints,
                    gripper_controller of type
                    position_controllers/GripperActionController)
  params_file       armbridge's ROS parameters (launch/armbridge_params.yaml):
                    controller joints must match controllers_yaml

    ros2 launch ./launch/gazebo_jtc.launch.py description_file:=/path/arm.urdf.xacro \
        controllers_yaml:=/path/controllers.yaml

Needs: ros-$ROS_DISTRO-ros-gz, ros-$ROS_DISTRO-gz-ros2-control,
ros-$ROS_DISTRO-ros2-controllers, ros-$ROS_DISTRO-xacro.
"""
import os

from launch import LaunchDescription
from launch.actions import (DeclareLaunchArgument, ExecuteProcess, IncludeLaunchDescription,
                            RegisterEventHandler)
from launch.event_handlers import OnProcessExit
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import Command, LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

HERE = os.path.dirname(os.path.abspath(__file__))


def generate_launch_description():
    description = ParameterValue(Command(["xacro ", LaunchConfiguration("description_file")]), value_type=str)

    gazebo = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(
            PathJoinSubstitution([FindPackageShare("ros_gz_sim"), "launch", "gz_sim.launch.py"])),
        launch_arguments={"gz_args": [LaunchConfiguration("world"), " -r -v 1"]}.items())

    robot_state_publisher = Node(
        package="robot_state_publisher", executable="robot_state_publisher", output="screen",
        parameters=[{"robot_description": description, "use_sim_time": True}])

    spawn = Node(
        package="ros_gz_sim", executable="create", output="screen",
        arguments=["-topic", "robot_description", "-name", "arm", "-allow_renaming", "true"])

    clock_bridge = Node(
        package="ros_gz_bridge", executable="parameter_bridge", output="screen",
        arguments=["/clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock"])

    def spawner(name):
        return Node(package="controller_manager", executable="spawner", output="screen",
                    arguments=[name, "--controller-manager", "/controller_manager",
                               "--param-file", LaunchConfiguration("controllers_yaml")])

    jsb = spawner("joint_state_broadcaster")
    jtc = spawner("joint_trajectory_controller")
    gripper = spawner("gripper_controller")

    armbridge = ExecuteProcess(
        cmd=[LaunchConfiguration("armbridge"), "serve", "--ros",
             "--ros-args", "--params-file", LaunchConfiguration("params_file"),
             "-p", "use_sim_time:=true", "--"],
        prefix=LaunchConfiguration("launch_prefix"),
        output="screen", name="armbridge", sigterm_timeout="10")

    return LaunchDescription([
        DeclareLaunchArgument("description_file", description="URDF/xacro of the arm with ros2_control tags"),
        DeclareLaunchArgument("controllers_yaml", description="controller_manager parameters"),
        DeclareLaunchArgument("world", default_value="empty.sdf"),
        DeclareLaunchArgument("params_file", default_value=os.path.join(HERE, "armbridge_params.yaml")),
        DeclareLaunchArgument("armbridge", default_value="armbridge", description="one executable (no spaces)"),
        DeclareLaunchArgument("launch_prefix", default_value="", description="a runner before it, e.g. node (armbridge:= the built CLI's path)"),
        gazebo, robot_state_publisher, spawn, clock_bridge,
        # Controllers can only load once the entity (and its controller_manager) exists.
        RegisterEventHandler(OnProcessExit(target_action=spawn, on_exit=[jsb])),
        RegisterEventHandler(OnProcessExit(target_action=jsb, on_exit=[jtc, gripper])),
        # armbridge waits for its action servers itself; starting it after the JTC spawner keeps the logs readable.
        RegisterEventHandler(OnProcessExit(target_action=jtc, on_exit=[armbridge])),
    ])
