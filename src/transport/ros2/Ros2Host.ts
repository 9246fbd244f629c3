import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";
import { createRos2Node, type CreateRos2NodeOptions, type Ros2NodeHandle } from "./createRos2Node.js";
import { loadRclnodejs } from "./loadRclnodejs.js";
import type { Rclnodejs, RclServiceClient } from "./rclTypes.js";
import { readRobotDescription } from "./readRobotDescription.js";
import type { Ros2OptionsFile } from "./Ros2Options.js";
import { Ros2Transport } from "./Ros2Transport.js";

export interface Ros2HostDeps {
  /** An rclnodejs module (the test double); loaded with loadRclnodejs() when omitted. */
  readonly rclnodejs?: Rclnodejs;
  /** process.argv form; `--ros-args` in it reaches rcl. */
  readonly argv?: readonly string[];
  readonly logger?: Logger;
  readonly signalHandling?: CreateRos2NodeOptions["signalHandling"];
  /** Try to get a lost graph back (default true). */
  readonly reconnect?: boolean;
  /** Delays between checks of a lost graph. */
  readonly backoff?: BackoffOptions;
}

/** sensor_msgs/msg/CompressedImage: what image_transport's `compressed` plugin publishes. */
export const MSG_COMPRESSED_IMAGE = "sensor_msgs/msg/CompressedImage";

/**
 * Best effort, keep last 5 (rclnodejs 2.2.0 lib/qos.js `QoS.profileSensorData`).
 * Camera drivers often publish best effort, and a RELIABLE subscription — the
 * rclnodejs default — is incompatible with a best-effort publisher and gets
 * nothing (docs.ros.org/en/jazzy/Concepts/Intermediate/About-Quality-of-Service-Settings.html,
 * "QoS compatibilities"); a best-effort subscription receives from both.
 */
export const CAMERA_QOS = "qos_profile_sensor_data";

/**
 * Camera frames from this host's node: every CompressedImage on a topic, with
 * the camera QoS, and the node's clock (sim time under use_sim_time, as
 * Gazebo's camera stamps are). Structurally what the cameras ask for
 * (CompressedImageTopics); they never see the node.
 */
export interface RosImageTopics {
  subscribe(topic: string, onMessage: (message: unknown) => void): () => void;
  nowMs(): number;
}

/**
 * ROS 2 as a host: one `armbridge` node, and everything the bridge takes
 * from it handed out from one place —
 * - `transport`: the arm (FollowJointTrajectory / GripperCommand, /joint_states);
 * - `config`: the arm config as the node's parameters and the robot_description
 *   topic refine it (controllers, tolerances, the URDF);
 * - `serviceClient`: a service on the graph (MoveIt's compute_ik);
 * - `imageTopics`: camera topics on the node's clock;
 * - `robotDescription`: the URDF read from its topic, when the config asks.
 * The node lives as long as the host: `close()` closes the transport, then
 * destroys the node and shuts rclnodejs down. Nothing else holds the node, so
 * nothing needs to reach into the transport for it.
 */
export class Ros2Host {
  readonly transport: Ros2Transport;
  readonly config: ArmConfig;
  readonly robotDescription: string | undefined;
  readonly imageTopics: RosImageTopics;
  readonly #handle: Ros2NodeHandle;
  readonly #clients: RclServiceClient[] = [];

  private constructor(
    handle: Ros2NodeHandle,
    transport: Ros2Transport,
    config: ArmConfig,
    robotDescription: string | undefined,
  ) {
    this.#handle = handle;
    this.transport = transport;
    this.config = config;
    this.robotDescription = robotDescription;
    const node = handle.node;
    this.imageTopics = {
      subscribe: (topic, onMessage) => {
        const subscription = node.createSubscription(MSG_COMPRESSED_IMAGE, topic, { qos: CAMERA_QOS }, onMessage);
        return () => {
          try {
            node.destroySubscription(subscription);
          } catch {
            // The node may already be destroyed with the host; its subscriptions went with it.
          }
        };
      },
      nowMs: () => Number(node.now().nanoseconds) / 1e6,
    };
  }

  /**
   * Loads rclnodejs (or takes the one given), starts and spins the node with
   * its parameters, reads the URDF from `arm.robot_description` when the
   * config names one (ARMB_ERR_ROBOT_DESCRIPTION_MISSING when none arrives in
   * time), and makes the arm transport, ready to open().
   */
  static async start(config: ArmConfig, options?: Ros2OptionsFile, deps: Ros2HostDeps = {}): Promise<Ros2Host> {
    const rcl = deps.rclnodejs ?? (await loadRclnodejs());
    const handle = await createRos2Node(rcl, {
      config,
      options,
      ...(deps.argv ? { argv: deps.argv } : {}),
      ...(deps.logger ? { logger: deps.logger } : {}),
      ...(deps.signalHandling ? { signalHandling: deps.signalHandling } : {}),
    });
    let resolved = handle.config;
    let urdfText: string | undefined;
    try {
      const description = resolved.arm.robotDescription;
      if (description) {
        urdfText = await readRobotDescription(rcl, handle.node, description.topic, description.timeoutMs, (detail) =>
          deps.logger?.warn({ component: "ros2-node", topic: description.topic }, detail),
        );
        resolved = { ...resolved, arm: { ...resolved.arm, urdfText } };
        deps.logger?.info(
          { component: "ros2-node", topic: description.topic, bytes: urdfText.length },
          "URDF read from the robot description topic",
        );
      }
    } catch (error) {
      handle.shutdown();
      throw error;
    }
    const transport = new Ros2Transport({
      rcl,
      node: handle.node,
      config: resolved,
      setup: handle.setup,
      ...(deps.reconnect === undefined ? {} : { reconnect: deps.reconnect }),
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
      ...(deps.logger ? { logger: deps.logger } : {}),
    });
    return new Ros2Host(handle, transport, resolved, urdfText);
  }

  /** A client of a service on the graph (compute_ik): `sendRequest(request, callback)`, `waitForService(ms)`. Destroyed with the host. */
  serviceClient(typeClass: string, serviceName: string): RclServiceClient {
    const client = this.#handle.node.createClient(typeClass, serviceName);
    this.#clients.push(client);
    return client;
  }

  /** Closes the transport (its waits, handles and subscription), then the node and rclnodejs. Idempotent. */
  async close(): Promise<void> {
    await this.transport.close();
    for (const client of this.#clients.splice(0)) {
      try {
        this.#handle.node.destroyClient(client);
      } catch {
        // Gone with the node already.
      }
    }
    this.#handle.shutdown();
  }
}
