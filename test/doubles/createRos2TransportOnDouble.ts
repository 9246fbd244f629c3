import type { ArmConfig } from "../../src/config/ArmConfig.js";
import {
  Ros2Host,
  resolveRos2Setup,
  ros2OptionsOf,
  type Ros2OptionsFile,
  type Ros2Transport,
} from "../../src/transport/ros2/index.js";
import { createRclnodejsDouble, type RclnodejsDoubleHandle, type RclnodejsDoubleOptions } from "./rclnodejsDouble.js";

export interface Ros2OnDouble {
  /** Not opened yet: call `transport.open()`. Use `transport.config` for lock keys. */
  readonly transport: Ros2Transport;
  /** The host that owns the node: camera topics, service clients, the resolved config. */
  readonly host: Ros2Host;
  readonly double: RclnodejsDoubleHandle;
  close(): Promise<void>;
}

/**
 * The ROS 2 transport wired to the rclnodejs double, whose simulated JTCs and
 * gripper match `config` (joints at their home positions, one JTC per arm
 * controller, or one for all joints; a gripper_action_controller, a
 * parallel gripper controller or franka_gripper's node as `gripper.kind`
 * says). `options` defaults to the config's own `ros2:` section, as the CLI
 * uses it; `simulation` overrides any part of the graph.
 */
export async function createRos2TransportOnDouble(
  config: ArmConfig,
  options: Ros2OptionsFile | undefined = undefined,
  simulation: Partial<RclnodejsDoubleOptions> & {
    readonly argv?: readonly string[];
    readonly reconnect?: boolean;
  } = {},
): Promise<Ros2OnDouble> {
  const { setup } = resolveRos2Setup(config, ros2OptionsOf(options, config));
  const positions: Record<string, number> = {};
  for (const j of config.arm.joints) positions[j.name] = j.home;
  const g = setup.gripper;
  const stroke = g ? Math.abs(g.openPosition - g.closedPosition) : 0;
  const gripperAt = g ? g.closedPosition + (config.arm.gripper?.home ?? 1) * (g.openPosition - g.closedPosition) : 0;
  if (g && g.kind !== "franka") positions[g.joint] = gripperAt;
  const gripper: Partial<RclnodejsDoubleOptions> = !g
    ? {}
    : g.kind === "franka"
      ? {
          frankaGripper: {
            actionName: g.actionName,
            joints: [g.joint, g.joint.replace(/1$/, "2")],
            maxWidth: 2 * Math.max(g.openPosition, g.closedPosition),
            width: 2 * gripperAt,
          },
        }
      : {
          gripper: {
            actionName: g.actionName,
            kind: g.kind === "parallel_gripper" ? "parallel_gripper" : "gripper_command",
            joint: g.joint,
            velocity: stroke * (config.arm.gripper?.maxVelocity ?? 1),
            goalTolerance: (config.tolerances.gripper / 2) * stroke,
          },
        };
  const double = createRclnodejsDouble({
    positions,
    controllers: setup.controllers.map((c) => ({ name: c.name, actionName: c.actionName, joints: c.joints })),
    ...gripper,
    jointStatesTopic: setup.options.jointStatesTopic,
    ...simulation,
  });
  try {
    const host = await Ros2Host.start(config, options, {
      rclnodejs: double.rcl,
      argv: simulation.argv ?? ["node", "armbridge"],
      ...(simulation.reconnect === undefined ? {} : { reconnect: simulation.reconnect }),
    });
    return {
      transport: host.transport,
      host,
      double,
      close: async () => {
        await host.close();
        double.close();
      },
    };
  } catch (error) {
    double.close();
    throw error;
  }
}
