"""Start the armbridge bridge as the ROS 2 node `armbridge`.

armbridge is an npm package, not an ament package, so launch_ros's
Node(package=..., executable=...) cannot find it (that needs
`ros2 pkg prefix` to resolve). ExecuteProcess runs the `armbridge` CLI
instead; everything after --ros-args reaches rcl exactly as it would for a
ROS node (parameters, params file, remaps), and the node still appears as
/armbridge in `ros2 node list` / `ros2 param list`.

    ros2 launch ./launch/armbridge.launch.py params_file:=./launch/armbridge_params.yaml

Requires a shell where ROS 2 is sourced. `armbridge` must name one
executable: ExecuteProcess runs it without a shell, so a value with a space
("npx armbridge") would be looked up as a program of that whole name. Use it
on PATH (`npm link` in the armbridge checkout), or name this checkout's built
CLI with a runner in front: `launch_prefix:=node
armbridge:=/path/to/armbridge/dist/src/surfaces/cli/main.js`. launch splits
the prefix like a shell would (shlex) and puts it before the command. Never
`npx`: outside the checkout it fetches a package of that name from the
public npm registry.
"""
import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess
from launch.substitutions import LaunchConfiguration

HERE = os.path.dirname(os.path.abspath(__file__))


def generate_launch_description():
    params_file = LaunchConfiguration("params_file")
    armbridge = LaunchConfiguration("armbridge")
    command = LaunchConfiguration("command")
    return LaunchDescription([
        DeclareLaunchArgument("params_file", default_value=os.path.join(HERE, "armbridge_params.yaml"),
                              description="ROS parameters of the armbridge node"),
        DeclareLaunchArgument("armbridge", default_value="armbridge",
                              description="the armbridge executable: one program name or path, no spaces"),
        DeclareLaunchArgument("launch_prefix", default_value="",
                              description="a runner put before it, split like a shell would (e.g. 'node', with armbridge:= the path of dist/src/surfaces/cli/main.js)"),
        DeclareLaunchArgument("command", default_value="serve",
                              description="armbridge subcommand: serve (HTTP/console) or mcp"),
        DeclareLaunchArgument("use_sim_time", default_value="false",
                              description="true under Gazebo"),
        ExecuteProcess(
            cmd=[armbridge, command, "--ros",
                 "--ros-args",
                 "--params-file", params_file,
                 "-p", ["use_sim_time:=", LaunchConfiguration("use_sim_time")],
                 "--"],
            prefix=LaunchConfiguration("launch_prefix"),
            shell=False,
            output="screen",
            # armbridge shuts its node down on SIGINT; give in-flight goals time to be cancelled.
            sigterm_timeout="10",
            name="armbridge",
        ),
    ])
