import type { ArmConfig } from "../config/ArmConfig.js";
import type { Logger } from "../observability/logger.js";
import { createSerialTransport } from "../transport/serial/index.js";
import { createServoBusTransport } from "../transport/bus/index.js";
import { requireBusCalibration } from "../transport/bus/setup/requireBusCalibration.js";
import { linkForUrl } from "../transport/serial/link/openLink.js";
import type { Transport } from "../transport/Transport.js";
import type { ArmKinematics } from "../kinematics/armKinematics.js";
import type { RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";

/** Which arm to talk to. */
export type TransportChoice =
  /** Firmware over a serial line: a device path (`/dev/ttyACM0`, a socat PTY) or `tcp://HOST:PORT`. */
  | { readonly kind: "serial"; readonly link: string; readonly baudRate?: number | undefined }
  /**
   * ros2_control controllers through rclnodejs, loaded only now. `argv` is
   * process.argv-shaped; `--ros-args -p name:=value --params-file F` in it
   * reach rcl and override the node's parameters.
   */
  | { readonly kind: "ros2"; readonly argv?: readonly string[] | undefined; readonly paramsFile?: string | undefined }
  /** A Transport built by the caller (library users, tests). */
  | { readonly kind: "custom"; readonly transport: Transport };

export interface CreatedTransport {
  readonly transport: Transport;
  /**
   * The arm config to build tools and lock keys from. The ROS path may refine
   * it (controllers from node parameters, a default joint_trajectory_controller
   * when the config lists none), and its controllers are lock resources.
   */
  readonly config: ArmConfig;
  /** `kinematics: moveit` on ROS: the IK service for the Cartesian tools. */
  readonly remoteIk?: ((kin: ArmKinematics) => RemoteIkSolver) | undefined;
}

export async function createTransport(config: ArmConfig, choice: TransportChoice, logger: Logger, options: { readonly configLabel?: string } = {}): Promise<CreatedTransport> {
  switch (choice.kind) {
    case "serial":
      // A config with a bus: section names servos, not firmware: the same link speaks their protocol.
      if (config.bus) {
        const link = linkForUrl(choice.link, { baudRate: config.bus.baud });
        // Before the transport exists: opening it arms every servo.
        const calibrated = await requireBusCalibration(config, link, { configLabel: options.configLabel ?? "FILE" });
        logger.info({ calibration: calibrated }, "bus arm calibrated");
        return { config, transport: createServoBusTransport(config, link, { logger }) };
      }
      return { config, transport: createSerialTransport(config, choice.link, { logger, ...(choice.baudRate === undefined ? {} : { baudRate: choice.baudRate }) }) };
    case "ros2": {
      // Imported here, not at the top: the ROS path costs nothing (and needs
      // no ROS install) unless it is chosen. rclnodejs itself is imported
      // lazily inside, failing with ARMB_ERR_ROS_UNAVAILABLE where it can't load.
      const { createRos2Transport } = await import("../transport/ros2/index.js");
      const argv = [...(choice.argv ?? process.argv)];
      if (choice.paramsFile !== undefined) argv.push("--ros-args", "--params-file", choice.paramsFile);
      const transport = await createRos2Transport(config, config.ros2 ?? {}, { argv, logger });
      return { config: transport.config, transport, remoteIk: transport.remoteIk };
    }
    case "custom":
      return { config, transport: choice.transport };
  }
}
