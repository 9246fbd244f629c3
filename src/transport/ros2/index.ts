import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { createRos2Node, type CreateRos2NodeOptions } from "./createRos2Node.js";
import { loadRclnodejs } from "./loadRclnodejs.js";
import type { Rclnodejs } from "./rclTypes.js";
import type { Ros2OptionsFile } from "./Ros2Options.js";
import { Ros2Transport } from "./Ros2Transport.js";
import { readRobotDescription } from "./readRobotDescription.js";
import { COMPUTE_IK_TYPE } from "../../kinematics/moveitComputeIk.js";
import { moveitIkSolver, type RemoteIkSolver } from "../../kinematics/RemoteIkSolver.js";
import type { ArmKinematics } from "../../kinematics/armKinematics.js";

export interface CreateRos2TransportDeps {
  /** An rclnodejs module (the test double); loaded with loadRclnodejs() when omitted. */
  readonly rclnodejs?: Rclnodejs;
  /** process.argv form; `--ros-args` in it reaches rcl. */
  readonly argv?: readonly string[];
  readonly logger?: Logger;
  readonly signalHandling?: CreateRos2NodeOptions["signalHandling"];
  /** Try to get a lost graph back (default true). */
  readonly reconnect?: boolean;
}

/**
 * The ROS 2 transport, ready to open(): loads rclnodejs (or takes the one
 * given), starts and spins the `armbridge` node with its parameters, and
 * returns a Transport whose close() also shuts the node down. Use
 * `transport.config` (not the config passed in) for lock keys: parameters may
 * have changed the controllers, and a default JTC is added when the arm config
 * lists none.
 *
 * With `arm.robot_description` the URDF is read from that topic first (start
 * fails with ARMB_ERR_ROBOT_DESCRIPTION_MISSING when none arrives in time);
 * with `kinematics: moveit` a compute_ik client is made for the Cartesian
 * tools (`transport.remoteIk`). move_group not answering yet is a warning:
 * it may start after us, and each call then says so.
 */
export async function createRos2Transport(config: ArmConfig, options: Ros2OptionsFile = {}, deps: CreateRos2TransportDeps = {}): Promise<Ros2Transport> {
  const rcl = deps.rclnodejs ?? (await loadRclnodejs());
  const handle = await createRos2Node(rcl, {
    config,
    options,
    ...(deps.argv ? { argv: deps.argv } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.signalHandling ? { signalHandling: deps.signalHandling } : {}),
  });
  let resolved = handle.config;
  let remoteIk: ((kin: ArmKinematics) => RemoteIkSolver) | undefined;
  try {
    const description = resolved.arm.robotDescription;
    if (description) {
      const urdfText = await readRobotDescription(rcl, handle.node, description.topic, description.timeoutMs);
      resolved = { ...resolved, arm: { ...resolved.arm, urdfText } };
      deps.logger?.info({ component: "ros2-node", topic: description.topic, bytes: urdfText.length }, "URDF read from the robot description topic");
    }
    const moveit = resolved.moveit;
    if (resolved.kinematics === "moveit" && moveit) {
      const client = handle.node.createClient(COMPUTE_IK_TYPE, moveit.service);
      if (!(await client.waitForService(moveit.callTimeoutMs))) {
        deps.logger?.warn({ component: "ros2-node", service: moveit.service }, "kinematics: moveit, but no compute_ik service answers yet (is move_group running?); Cartesian calls are rejected until it does");
      }
      remoteIk = (kin) => moveitIkSolver(client, moveit, kin);
    }
  } catch (error) {
    handle.shutdown();
    throw error;
  }
  return new Ros2Transport({
    rcl,
    node: handle.node,
    config: resolved,
    setup: handle.setup,
    remoteIk,
    ...(deps.reconnect === undefined ? {} : { reconnect: deps.reconnect }),
    ...(deps.logger ? { logger: deps.logger } : {}),
    onClose: () => handle.shutdown(),
  });
}

export { Ros2Transport, type Ros2Feedback, type Ros2TransportDeps } from "./Ros2Transport.js";
export { createRos2Node, type CreateRos2NodeOptions, type Ros2NodeHandle } from "./createRos2Node.js";
export { loadRclnodejs, type LoadRclnodejsOptions, type RclnodejsImporter } from "./loadRclnodejs.js";
export { ros2OptionsFileSchema, type Ros2Options, type Ros2OptionsFile, type GripperKind } from "./Ros2Options.js";
export { resolveRos2Setup, DEFAULT_CONTROLLER_NAME, type Ros2Setup, type TrajectoryControllerSetup, type GripperSetup } from "./resolveRos2Setup.js";
export { buildTrajectoryGoal, restToRestTime } from "./buildTrajectoryGoal.js";
export type { Rclnodejs } from "./rclTypes.js";
