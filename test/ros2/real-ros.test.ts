import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { loadRclnodejs, Ros2Host, type Rclnodejs } from "../../src/transport/ros2/index.js";

/**
 * Against a real ROS 2 graph: ros2_control with mock hardware (or Gazebo)
 * running a joint_trajectory_controller for the joints of the arm config —
 * see docs/ros2.md, "Running the real-ROS test". Runs only where ROS_DISTRO is
 * set and rclnodejs loads; elsewhere it is skipped and says why.
 */
async function probe(): Promise<{ rcl: Rclnodejs } | { skip: string }> {
  if (!process.env.ROS_DISTRO) return { skip: "ROS_DISTRO is not set (no sourced ROS 2)" };
  try {
    return { rcl: await loadRclnodejs() };
  } catch (error) {
    return { skip: `rclnodejs does not load: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const found = await probe();
const skip = "skip" in found ? found.skip : undefined;
if (skip) console.log(`[real-ros] skipped: ${skip}`);

describe("ROS 2 transport against a real controller", () => {
  it.skipIf(skip !== undefined)(
    `moves one joint there and back through JTC${skip ? ` (skipped: ${skip})` : ""}`,
    async () => {
      if ("skip" in found) return;
      const config = loadConfig(process.env.ARMBRIDGE_ROS_TEST_CONFIG);
      const host = await Ros2Host.start(
        config,
        {},
        { rclnodejs: found.rcl, argv: ["node", "armbridge", "--ros-args", "--"] },
      );
      const transport = host.transport;
      try {
        await transport.open(AbortSignal.timeout(10_000));
        const joint = config.arm.joints[0]!;
        const from = transport.latestStatus()!.axes[joint.name]!.position;
        const to = Math.min(joint.max, Math.max(joint.min, from + 0.1));
        const out = await transport.runMotion(
          { actionId: `real-${Date.now()}`, targets: { [joint.name]: to }, speed: 0.5 },
          AbortSignal.timeout(20_000),
        );
        expect(out).toMatchObject({ kind: "ended", record: { state: "reached" } });
        const back = await transport.runMotion(
          { actionId: `real-back-${Date.now()}`, targets: { [joint.name]: from }, speed: 0.5 },
          AbortSignal.timeout(20_000),
        );
        expect(back).toMatchObject({ kind: "ended", record: { state: "reached" } });
      } finally {
        await host.close();
      }
    },
  );
});
