"""The serial simulator and the bridge on it: no ROS graph is needed, but the
pair is managed by `ros2 launch` (e.g. next to other nodes of a demo).

armbridge-sim prints one JSON ready line with its link; with `--link tcp
--port N` the link is known in advance (tcp://127.0.0.1:N), so the bridge is
started with that link and a short delay, and the bridge itself retries
nothing: if the simulator is not up yet it fails and the launch says so.

    ros2 launch ./launch/sim_bridge.launch.py port:=5760 seed:=7
"""
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess, TimerAction
from launch.substitutions import LaunchConfiguration


def generate_launch_description():
    port = LaunchConfiguration("port")
    config = LaunchConfiguration("config")
    sim = ExecuteProcess(
        cmd=[LaunchConfiguration("armbridge_sim"), "--link", "tcp", "--port", port,
             "--seed", LaunchConfiguration("seed"), "--config", config],
        prefix=LaunchConfiguration("launch_prefix"),
        output="screen", name="armbridge_sim")
    bridge = ExecuteProcess(
        cmd=[LaunchConfiguration("armbridge"), "serve", "--serial", ["tcp://127.0.0.1:", port],
             "--config", config],
        prefix=LaunchConfiguration("launch_prefix"),
        output="screen", name="armbridge")
    return LaunchDescription([
        DeclareLaunchArgument("port", default_value="5760"),
        DeclareLaunchArgument("seed", default_value="1"),
        DeclareLaunchArgument("config", default_value="config/sim-arm.yaml",
                              description="arm config shared by the simulator and the bridge"),
        DeclareLaunchArgument("armbridge_sim", default_value="armbridge-sim"),
        DeclareLaunchArgument("armbridge", default_value="armbridge", description="one executable (no spaces)"),
        DeclareLaunchArgument("launch_prefix", default_value="", description="a runner before each, e.g. npx"),
        sim,
        # The simulator binds its port within a few hundred ms of starting.
        TimerAction(period=2.0, actions=[bridge]),
    ])
