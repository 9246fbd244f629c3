import type { Logger } from "pino";
import { QosPolicy, type Rclnodejs, type RclNode, type RclSubscription } from "./rclTypes.js";

export const MSG_CLOCK = "rosgraph_msgs/msg/Clock";

/**
 * The node's ROS time, robust to a best-effort /clock.
 *
 * Under use_sim_time rclnodejs's TimeSource subscribes to /clock with the
 * default QoS, RELIABLE (lib/time_source.js `_subscribeToClockTopic` passes
 * no options, rclnodejs 2.2.0). A best-effort /clock publisher (rosbag2
 * `play --clock` publishes with rclcpp::ClockQoS, best effort) never matches
 * a reliable subscription, so `node.now()` stays 0 for good. This subscribes
 * to /clock itself, best effort — which matches both kinds of publisher — and
 * answers from it; it warns once when rclnodejs's own clock is left behind.
 * Without use_sim_time it is `node.now()`.
 */
export class RosClock {
  readonly #node: RclNode;
  readonly #log: Logger;
  #subscription: RclSubscription | undefined;
  #clockMs: number | undefined;
  #warned = false;
  /** The node runs on sim time (use_sim_time): ROS time is not wall time. */
  readonly simTime: boolean;

  constructor(rcl: Rclnodejs, node: RclNode, log: Logger) {
    this.#node = node;
    this.#log = log;
    let simTime = false;
    try {
      simTime = node.getParameter("use_sim_time").value === true;
    } catch {
      simTime = false;
    }
    this.simTime = simTime;
    if (!simTime) return;
    const qos = new rcl.QoS(
      QosPolicy.HISTORY_KEEP_LAST,
      1,
      QosPolicy.RELIABILITY_BEST_EFFORT,
      QosPolicy.DURABILITY_VOLATILE,
    );
    try {
      this.#subscription = node.createSubscription(MSG_CLOCK, "/clock", { qos }, (msg) => {
        const c = (msg as { clock?: { sec?: number; nanosec?: number } }).clock;
        if (typeof c?.sec !== "number") return;
        this.#clockMs = c.sec * 1000 + (c.nanosec ?? 0) / 1e6;
      });
    } catch (error) {
      log.warn(
        { err: error },
        "cannot subscribe to /clock: sim time is rclnodejs's own (which misses a best-effort /clock)",
      );
    }
  }

  /** ROS time in ms: the newest /clock under use_sim_time, else the node's clock. */
  nowMs(): number {
    const own = Number(this.#node.now().nanoseconds) / 1e6;
    if (this.#clockMs === undefined) return own;
    if (own === 0 && !this.#warned) {
      this.#warned = true;
      this.#log.warn(
        "/clock arrives, but rclnodejs's own time source (which subscribes RELIABLE) has none: the /clock publisher is best effort (rosbag2 play --clock?); armbridge counts sim time from its own best-effort /clock subscription",
      );
    }
    return Math.max(own, this.#clockMs);
  }

  close(): void {
    if (!this.#subscription) return;
    try {
      this.#node.destroySubscription(this.#subscription);
    } catch {
      // Destroyed with the node already.
    }
    this.#subscription = undefined;
  }
}
