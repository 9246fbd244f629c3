import type { ArmConfig } from "../config/ArmConfig.js";
import type { Logger } from "../observability/logger.js";
import { createSerialTransport } from "../transport/serial/index.js";
import { linkForUrl } from "../transport/link/openLink.js";
import type { Transport } from "../transport/Transport.js";
import type { CompressedImageTopics } from "../cameras/sources/CompressedImageTopics.js";
import type { ArmKinematics } from "../kinematics/armKinematics.js";
import { COMPUTE_IK_TYPE } from "../kinematics/moveitComputeIk.js";
import { moveitIkSolver, type RemoteIkSolver } from "../kinematics/RemoteIkSolver.js";
import type { Ros2Host } from "../transport/ros2/Ros2Host.js";

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
  /**
   * A Transport built by the caller (library users, tests), with the camera
   * topics of the ROS host it came from, if any (Ros2Host.imageTopics).
   */
  | {
      readonly kind: "custom";
      readonly transport: Transport;
      readonly imageTopics?: CompressedImageTopics | undefined;
    };

export interface CreatedTransport {
  readonly transport: Transport;
  /**
   * The arm config to build tools and lock keys from. The ROS path may refine
   * it (controllers from node parameters, a default joint_trajectory_controller
   * when the config lists none, the URDF from robot_description), and its
   * controllers are lock resources.
   */
  readonly config: ArmConfig;
  /** `kinematics: moveit` on ROS: the IK service for the Cartesian tools. */
  readonly remoteIk?: ((kin: ArmKinematics) => RemoteIkSolver) | undefined;
  /** Camera topics, when a ROS host is there to subscribe to them. */
  readonly imageTopics?: CompressedImageTopics | undefined;
  /** Releases the arm and whatever hosts it (the ROS node after the transport); idempotent. */
  close(): Promise<void>;
}

export async function createTransport(
  config: ArmConfig,
  choice: TransportChoice,
  logger: Logger,
  options: { readonly configLabel?: string } = {},
): Promise<CreatedTransport> {
  switch (choice.kind) {
    case "serial": {
      // A config with a bus: section names servos, not firmware: the same link speaks their protocol.
      if (config.bus) {
        // Imported here: a firmware arm's start-up does not load the servo-bus protocols and set-up.
        const [{ createServoBusTransport }, { requireBusCalibration }] = await Promise.all([
          import("../transport/bus/index.js"),
          import("../transport/bus/setup/requireBusCalibration.js"),
        ]);
        const link = linkForUrl(choice.link, { baudRate: config.bus.baud });
        // Before the transport exists: opening it arms every servo.
        const calibrated = await requireBusCalibration(config, link, { configLabel: options.configLabel ?? "FILE" });
        logger.info({ calibration: calibrated }, "bus arm calibrated");
        const bus = createServoBusTransport(config, link, { logger });
        return { config, transport: bus, close: () => bus.close() };
      }
      const transport = createSerialTransport(config, choice.link, {
        logger,
        ...(choice.baudRate === undefined ? {} : { baudRate: choice.baudRate }),
      });
      return { config, transport, close: () => transport.close() };
    }
    case "ros2": {
      // Imported here, not at the top: the ROS path costs nothing (and needs
      // no ROS install) unless it is chosen. rclnodejs itself is imported
      // lazily inside, failing with ARMB_ERR_ROS_UNAVAILABLE where it can't load.
      const { Ros2Host } = await import("../transport/ros2/index.js");
      const argv = [...(choice.argv ?? process.argv)];
      if (choice.paramsFile !== undefined) argv.push("--ros-args", "--params-file", choice.paramsFile);
      const host = await Ros2Host.start(config, undefined, { argv, logger });
      try {
        return {
          config: host.config,
          transport: host.transport,
          remoteIk: await remoteIkOn(host, logger),
          imageTopics: host.imageTopics,
          close: () => host.close(),
        };
      } catch (error) {
        await host.close();
        throw error;
      }
    }
    case "custom":
      return {
        config,
        transport: choice.transport,
        imageTopics: choice.imageTopics,
        close: () => choice.transport.close(),
      };
  }
}

/**
 * `kinematics: moveit`: Cartesian tools ask move_group's compute_ik through a
 * client of the host's node. move_group not answering yet is a warning: it may
 * start after us, and each call then says so.
 */
export async function remoteIkOn(
  host: Ros2Host,
  logger: Logger,
): Promise<((kin: ArmKinematics) => RemoteIkSolver) | undefined> {
  const moveit = host.config.moveit;
  if (host.config.kinematics !== "moveit" || !moveit) return undefined;
  const client = host.serviceClient(COMPUTE_IK_TYPE, moveit.service);
  if (!(await client.waitForService(moveit.callTimeoutMs))) {
    logger.warn(
      { component: "ros2-node", service: moveit.service },
      "kinematics: moveit, but no compute_ik service answers yet (is move_group running?); Cartesian calls are rejected until it does",
    );
  }
  return (kin) => moveitIkSolver(client, moveit, kin);
}
