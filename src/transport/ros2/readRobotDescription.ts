import { ArmbridgeError } from "../../errors.js";
import { MSG_STRING, QosPolicy, type Rclnodejs, type RclNode, type RclSubscription } from "./rclTypes.js";

/**
 * The URDF from the robot_description topic, read once at start.
 *
 * robot_state_publisher publishes it once (and again only when its
 * `robot_description` parameter changes) with `rclcpp::QoS(1).transient_local()`
 * — "similar to latching in ROS 1" (github.com/ros/robot_state_publisher,
 * src/robot_state_publisher.cpp @ 01a7be1e, RobotStatePublisher constructor;
 * its own topic subscriber asks for `QoS(1).transient_local().reliable()`). A
 * subscriber that joins later gets the stored sample only if it too asks for
 * transient-local durability (DDS: a volatile reader receives no history), so
 * this subscribes with depth 1, reliable, transient-local. The node must be
 * spinning for the sample to arrive. No sample within `timeoutMs` (no
 * publisher, a volatile publisher that published before we joined, a wrong
 * topic) is ARMB_ERR_ROBOT_DESCRIPTION_MISSING; an empty string is refused the
 * same way. The timer is always cleared and the subscription destroyed.
 */
export async function readRobotDescription(
  rcl: Rclnodejs,
  node: RclNode,
  topic: string,
  timeoutMs: number,
): Promise<string> {
  const qos = new rcl.QoS(
    QosPolicy.HISTORY_KEEP_LAST,
    1,
    QosPolicy.RELIABILITY_RELIABLE,
    QosPolicy.DURABILITY_TRANSIENT_LOCAL,
  );
  let subscription: RclSubscription | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ArmbridgeError("ARMB_ERR_ROBOT_DESCRIPTION_MISSING", {
              topic,
              ms: timeoutMs,
              reason:
                "no publisher delivered one (is robot_state_publisher running, and publishing transient-local on that topic?)",
            }),
          ),
        timeoutMs,
      );
      subscription = node.createSubscription(MSG_STRING, topic, { qos }, (message) => {
        const data = (message as { data?: unknown } | undefined)?.data;
        if (typeof data === "string" && data.trim() !== "") resolve(data);
        else
          reject(
            new ArmbridgeError("ARMB_ERR_ROBOT_DESCRIPTION_MISSING", {
              topic,
              ms: timeoutMs,
              reason: "the message on it was empty",
            }),
          );
      });
    });
  } finally {
    clearTimeout(timer);
    if (subscription) node.destroySubscription(subscription);
  }
}
