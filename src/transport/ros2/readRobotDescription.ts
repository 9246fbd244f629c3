import { ArmbridgeError } from "../../errors.js";
import { deviceText } from "../../validation/deviceText.js";
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
 *
 * With more than one publisher on the topic (ros2_robotiq_gripper's
 * robotiq_control.launch.py beside a UR's driver starts a second
 * robot_state_publisher), each delivers its own stored sample: the first to
 * arrive is kept, and the others that arrive within DISAGREEMENT_WINDOW_MS
 * and differ are told to `onDisagreement` in words for an operator, since the
 * kept one may be the gripper's alone.
 */
export async function readRobotDescription(
  rcl: Rclnodejs,
  node: RclNode,
  topic: string,
  timeoutMs: number,
  onDisagreement?: (detail: string) => void,
): Promise<string> {
  const qos = new rcl.QoS(
    QosPolicy.HISTORY_KEEP_LAST,
    SAMPLES_KEPT,
    QosPolicy.RELIABILITY_RELIABLE,
    QosPolicy.DURABILITY_TRANSIENT_LOCAL,
  );
  let subscription: RclSubscription | undefined;
  let timer: NodeJS.Timeout | undefined;
  const texts: string[] = [];
  try {
    const kept = await new Promise<string>((resolve, reject) => {
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
        if (typeof data === "string" && data.trim() !== "") {
          if (texts.push(data) > 1) return;
          clearTimeout(timer);
          if ((node.countPublishers?.(topic) ?? 1) <= 1) resolve(data);
          // Others' stored samples arrive at once when they do: a short wait, only when there are others.
          else setTimeout(() => resolve(data), DISAGREEMENT_WINDOW_MS).unref();
        } else
          reject(
            new ArmbridgeError("ARMB_ERR_ROBOT_DESCRIPTION_MISSING", {
              topic,
              ms: timeoutMs,
              reason: "the message on it was empty",
            }),
          );
      });
    });
    const others = texts.filter((t) => t !== kept);
    if (others.length > 0 && onDisagreement) onDisagreement(disagreement(topic, kept, others));
    return kept;
  } finally {
    clearTimeout(timer);
    if (subscription) node.destroySubscription(subscription);
  }
}

/** Each publisher's stored sample fits, so none is dropped before it is read. */
const SAMPLES_KEPT = 8;
const DISAGREEMENT_WINDOW_MS = 500;

function disagreement(topic: string, kept: string, others: readonly string[]): string {
  const describe = (urdf: string): string => {
    const name = /<robot\b[^>]*\bname\s*=\s*"([^"]*)"/.exec(urdf)?.[1] ?? "?";
    const joints = (urdf.match(/<joint\b/g) ?? []).length;
    return `robot ${deviceText(`a publisher of ${topic}`, name)} with ${joints} joint(s)`;
  };
  return `${others.length + 1} publishers of ${topic} disagree: armbridge kept the first to arrive (${describe(kept)}), not ${others.map(describe).join(", ")}. Run one robot_state_publisher with one description that composes the arm and its gripper (one controller manager, one robot_state_publisher), or point arm.robot_description.topic at the whole one`;
}
