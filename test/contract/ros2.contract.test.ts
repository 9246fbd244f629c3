import { GOAL_STATUS } from "../doubles/rclnodejsDouble.js";
import { createRos2TransportOnDouble } from "../doubles/createRos2TransportOnDouble.js";
import { testConfig } from "../support/testConfig.js";
import { transportContract } from "./transportContract.js";

transportContract(
  "ros2 (rclnodejs double: joint_trajectory_controller + gripper, Jazzy preemption)",
  async () => {
    const ros = await createRos2TransportOnDouble(testConfig(), {}, { distro: "jazzy" });
    await ros.transport.open(AbortSignal.timeout(5000));
    const servers = () => [...ros.double.world.servers.values()];
    return {
      // The ROS path's config adds the controller: a lock resource, since JTC preempts.
      config: ros.transport.config,
      transport: ros.transport,
      motionStarts: () => servers().reduce((n, s) => n + s.goals.length, 0),
      // Jazzy's JTC aborts the active goal when another arrives: each ABORTED goal is a preemption.
      conflicts: () => servers().reduce((n, s) => n + s.goals.filter((g) => g.status === GOAL_STATUS.ABORTED).length, 0),
      close: () => ros.close(),
    };
  },
  { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_2: 0.4 } },
);
