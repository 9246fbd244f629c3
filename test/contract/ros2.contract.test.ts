import { GOAL_STATUS, type RclnodejsDoubleOptions } from "../doubles/rclnodejsDouble.js";
import { createRos2TransportOnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { testConfig } from "../support/testConfig.js";
import { transportContract, type ContractArmOptions } from "./transportContract.js";

const MOVES = { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_2: 0.4 } };

/** The ROS path on the double, with the controllers set up as `sim` says. */
function onDouble(sim: Partial<RclnodejsDoubleOptions> & { readonly argv?: readonly string[] }, config = testConfig()) {
  return async ({ reconnect }: ContractArmOptions) => {
    const ros = await createRos2TransportOnDouble(config, {}, { ...sim, reconnect });
    await ros.transport.open(AbortSignal.timeout(5000));
    const world = ros.double.world;
    const servers = () => [...world.servers.values()];
    const goalsReceived = () => servers().reduce((n, s) => n + s.received.length, 0);
    let receivedBeforeReplacement = 0;
    return {
      // The ROS path's config adds the controller: a lock resource, since JTC preempts.
      config: ros.transport.config,
      transport: ros.transport,
      motionStarts: () => servers().reduce((n, s) => n + s.goals.length, 0),
      // Jazzy ≥ 4.41's JTC aborts the active goal when another arrives: each ABORTED goal is a preemption.
      conflicts: () => servers().reduce((n, s) => n + s.goals.filter((g) => g.status === GOAL_STATUS.ABORTED).length, 0),
      faults: {
        // A network partition: the controllers run on, nothing reaches us or them.
        dropLink: async (ms: number) => world.partition(ms),
        // controller_manager restarted: goals forgotten with no result, the hardware holding where it stopped.
        powerLoss: async (ms: number) => world.restartControllers(ms),
        replaceWithOtherDevice: async () => {
          receivedBeforeReplacement = goalsReceived();
          world.replaceRobot(["other_joint_1", "other_joint_2", "other_joint_3"]);
        },
        otherDeviceMotions: () => goalsReceived() - receivedBeforeReplacement,
      },
      close: () => ros.close(),
    };
  };
}

transportContract("ros2 (rclnodejs double: joint_trajectory_controller + gripper, Jazzy preemption)", onDouble({ distro: "jazzy" }), MOVES, {
  idleDropMs: 600,
  // JTC's plan for this move is about 1.2 s: the partition outlasts it.
  midMotion: { move: { elbow: 0.4 }, speed: 0.5, dropAfterMs: 150, dropMs: 1600 },
  powerLoss: { move: { elbow: 0.4 }, speed: 0.2, afterMs: 400, outageMs: 700 },
});

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
