import { join } from "node:path";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { createRos2TransportOnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { motionGoals, preemptedByOthers, type RclnodejsDoubleOptions } from "../doubles/rclnodejsDouble.js";
import { urDriverDouble } from "../doubles/robotDoubles.js";
import { testConfig } from "../support/testConfig.js";
import { transportContract, type ContractArmOptions } from "./transportContract.js";

const MOVES = { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_2: 0.4 } };

/** The ROS path on the double, with the controllers set up as `sim` says. */
function onDouble(sim: Partial<RclnodejsDoubleOptions> & { readonly argv?: readonly string[] }, config = testConfig()) {
  return async ({ reconnect }: ContractArmOptions) => {
    const ros = await createRos2TransportOnDouble(config, undefined, { ...sim, reconnect });
    await ros.transport.open(AbortSignal.timeout(10_000));
    const world = ros.double.world;
    const servers = () => [...world.servers.values()];
    const goalsReceived = () => servers().reduce((n, s) => n + s.received.length, 0);
    let receivedBeforeReplacement = 0;
    return {
      // The ROS path's config adds the controller: a lock resource, since JTC preempts.
      config: ros.transport.config,
      transport: ros.transport,
      // Goals accepted, our hold goals (stops) not counted.
      motionStarts: () => servers().reduce((n, s) => n + motionGoals(s.goals).length, 0),
      // A goal another goal preempted, unless that was one of our hold goals (a stop).
      conflicts: () => servers().reduce((n, s) => n + preemptedByOthers(s.goals).length, 0),
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

transportContract(
  "ros2 (rclnodejs double: joint_trajectory_controller + gripper, Jazzy preemption)",
  onDouble({ distro: "jazzy" }),
  MOVES,
  {
    idleDropMs: 600,
    // JTC's plan for this move is about 1.2 s: the partition outlasts it.
    midMotion: { move: { elbow: 0.4 }, speed: 0.5, dropAfterMs: 150, dropMs: 1600 },
    powerLoss: { move: { elbow: 0.4 }, speed: 0.2, afterMs: 400, outageMs: 700 },
  },
);

// Every budget below is the config's own: the executor counts them in the arm's time (its pace,
// read from the controllers), so a slowed arm needs no operator to scale observe.max_ms by hand.
transportContract(
  "ros2 (rclnodejs double, speed scaling 0.5)",
  onDouble({ distro: "jazzy", speedScaling: 0.5 }),
  MOVES,
);

// Gazebo at half real time, armbridge on use_sim_time: the node clock runs at half the wall clock.
transportContract(
  "ros2 (rclnodejs double, use_sim_time with a sim clock at 0.5× real time)",
  onDouble({
    distro: "jazzy",
    simTimeRate: 0.5,
    argv: ["node", "armbridge", "--ros-args", "-p", "use_sim_time:=true", "--"],
  }),
  MOVES,
);

// The shipped UR5e config on ur_robot_driver's graph: scaled_joint_trajectory_controller, path
// tolerance 0.2, the speed slider at 100 % and at 30 %, with the config's own timeouts.
const ur = loadConfig(join(packageRoot(), "config", "ur5e-ros2.yaml"));
const UR_MOVES = {
  slowMove: { elbow_joint: 1.97 },
  quickMove: { elbow_joint: 2.0 },
  otherJointMove: { wrist_2_joint: -1.17 },
};
for (const scaling of [1.0, 0.3]) {
  transportContract(
    `ros2 (config/ur5e-ros2.yaml on ur_robot_driver, speed slider ${Math.round(scaling * 100)} %)`,
    onDouble({ distro: "jazzy", ...urDriverDouble(ur, scaling) }, ur),
    UR_MOVES,
  );
}
// The Robotiq variant: the same arm and timeouts, and a Robotiq 2F-85 on parallel_gripper_action_controller.
const urRobotiq = loadConfig(join(packageRoot(), "config", "ur5e-robotiq-ros2.yaml"));
transportContract(
  "ros2 (config/ur5e-robotiq-ros2.yaml on ur_robot_driver + ros2_robotiq_gripper, speed slider 30 %)",
  onDouble({ distro: "jazzy", ...urDriverDouble(urRobotiq, 0.3) }, urRobotiq),
  UR_MOVES,
);
