import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { createRos2Node, type CreateRos2NodeOptions } from "./createRos2Node.js";
import { loadRclnodejs } from "./loadRclnodejs.js";
import type { Rclnodejs } from "./rclTypes.js";
import type { Ros2OptionsFile } from "./Ros2Options.js";
import { Ros2Transport } from "./Ros2Transport.js";

export interface CreateRos2TransportDeps {
  /** An rclnodejs module (the test double); loaded with loadRclnodejs() when omitted. */
  readonly rclnodejs?: Rclnodejs;
  /** process.argv form; `--ros-args` in it reaches rcl. */
  readonly argv?: readonly string[];
  readonly logger?: Logger;
  readonly signalHandling?: CreateRos2NodeOptions["signalHandling"];
}

/**
 * The ROS 2 transport, ready to open(): loads rclnodejs (or takes the one
 * given), starts and spins the `armbridge` node with its parameters, and
 * returns a Transport whose close() also shuts the node down. Use
 * `transport.config` (not the config passed in) for lock keys: parameters may
 * have changed the controllers, and a default JTC is added when the arm config
 * lists none.
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
  return new Ros2Transport({
    rcl,
    node: handle.node,
    config: handle.config,
    setup: handle.setup,
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
