import { motionGoals, preemptedByOthers, type RclnodejsDoubleOptions } from "../doubles/rclnodejsDouble.js";
import { createRos2TransportOnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { testConfig } from "../support/testConfig.js";
import { transportContract } from "./transportContract.js";

const MOVES = { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_2: 0.4 } };

/** The ROS path on the double, with the controllers set up as `sim` says. */
function onDouble(sim: Partial<RclnodejsDoubleOptions> & { readonly argv?: readonly string[] }, config = testConfig()) {
  return async () => {
    const ros = await createRos2TransportOnDouble(config, {}, sim);
    await ros.transport.open(AbortSignal.timeout(5000));
    const servers = () => [...ros.double.world.servers.values()];
    return {
      // The ROS path's config adds the controller: a lock resource, since JTC preempts.
      config: ros.transport.config,
      transport: ros.transport,
      // Goals accepted, our hold goals (stops) not counted.
      motionStarts: () => servers().reduce((n, s) => n + motionGoals(s.goals).length, 0),
      // A goal another goal preempted, unless that was one of our hold goals (a stop).
      conflicts: () => servers().reduce((n, s) => n + preemptedByOthers(s.goals).length, 0),
      close: () => ros.close(),
    };
  };
}

transportContract("ros2 (rclnodejs double: joint_trajectory_controller + gripper, Jazzy preemption)", onDouble({ distro: "jazzy" }), MOVES);

// A UR speed slider at 50 %: JTC runs every trajectory at half speed (traj_time_ += period × 0.5).
// The executor's observation window (observe.max_ms) is the operator's to scale with the arm's real speed:
// the slow move takes twice its plan here, so the window is doubled too.
const slowedArm = () => testConfig({ observe: { max_ms: 8000 } });

transportContract("ros2 (rclnodejs double, speed scaling 0.5)", onDouble({ distro: "jazzy", speedScaling: 0.5 }, slowedArm()), MOVES);

// Gazebo at half real time, armbridge on use_sim_time: the node clock runs at half the wall clock.
transportContract(
  "ros2 (rclnodejs double, use_sim_time with a sim clock at 0.5× real time)",
  onDouble({ distro: "jazzy", simTimeRate: 0.5, argv: ["node", "armbridge", "--ros-args", "-p", "use_sim_time:=true", "--"] }, slowedArm()),
  MOVES,
);
