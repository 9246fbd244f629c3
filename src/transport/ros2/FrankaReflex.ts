import { deviceText } from "../../validation/deviceText.js";
import type { LinkState } from "../Transport.js";
import { RosoutWatcher, type LoggedError } from "./RosoutWatcher.js";
import type { Rclnodejs, RclNode } from "./rclTypes.js";
import type { UrArmCondition } from "./UrRobotStatus.js";
import { ARM_SAFETY_STOP } from "./urArmCondition.js";

/**
 * libfranka words a reflex as a franka::ControlException whose what() reads
 * "libfranka: Move command aborted: motion aborted by reflex! [...]", the
 * errors named as its Errors prints them ("cartesian_reflex",
 * "joint_position_limits_violation"; libfranka src/errors.cpp). It reaches
 * /rosout inside ros2_control's "Exception of type : … thrown during read of
 * the component '…': <what()>" (hardware_interface resource_manager.cpp),
 * whichever logger carries it, so the line is told by the text alone.
 */
const REFLEX_LINE = /aborted by reflex/i;

export const REFLEX_ADVICE =
  "Look at the arm and remove what it ran into or back it away from the limit, then recover in three steps, in order (franka_hardware doc/index.rst): clear the robot's error (ros2 action send_goal /action_server/error_recovery franka_msgs/action/ErrorRecovery {}), set the hardware component active (ros2 control set_hardware_component_state FrankaHardwareInterface active), and activate the controllers again, the joint_state_broadcaster among them (ros2 control switch_controllers --activate …); then release the HALT";

/**
 * An FR3 reflex as the bridge learns of it: franka_hardware's read() fails on
 * the libfranka exception and the controller manager deactivates the
 * hardware component and every controller on it, the joint_state_broadcaster
 * too (franka_ros2 franka_hardware_interface.cpp, robot.cpp readOnce), so the
 * link only sees the JointStates go quiet. The reason is the line on
 * /rosout. It is reported as the arm's safety stop (the executor latches a
 * HALT on ARMB_ERR_ARM_SAFETY_STOP, haltOnArmStop) and kept until the link
 * has been down and is connected again (the three recovery steps bring the
 * broadcaster back last), or the bridge's own recovery succeeded.
 */
export class FrankaReflex {
  readonly #watcher: RosoutWatcher;
  readonly #listeners = new Set<() => void>();
  #reflex: LoggedError | undefined;
  #downSince = false;

  constructor(rcl: Rclnodejs, node: RclNode, now: () => number) {
    this.#watcher = new RosoutWatcher(rcl, node, (_logger, msg) => REFLEX_LINE.test(msg), now);
    this.#watcher.onError((error) => {
      this.#reflex = error;
      this.#downSince = false;
      for (const l of [...this.#listeners]) l();
    });
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The reflex the arm stopped on, while it is not recovered. */
  condition(): UrArmCondition | undefined {
    const reflex = this.#reflex;
    if (!reflex) return undefined;
    const at = reflex.msg.search(/libfranka:/);
    const text = deviceText(`/rosout (${reflex.node})`, at >= 0 ? reflex.msg.slice(at) : reflex.msg);
    return {
      kind: "safety_stop",
      detail: `the FR3 stopped on a reflex: ${text}; the hardware component and every controller on it went down, the joint_state_broadcaster too`,
      advice: REFLEX_ADVICE,
    };
  }

  /** The link with the reflex as its reason, in any state; watching it clears the reflex once recovered. */
  linkState(link: LinkState): LinkState {
    if (this.#reflex && link.state !== "connected") this.#downSince = true;
    else if (this.#reflex && this.#downSince) this.#reflex = undefined;
    const condition = this.condition();
    if (!condition) return link;
    const also = link.detail && link.state !== "connected" ? ` (${link.detail})` : "";
    return { ...link, error_code: ARM_SAFETY_STOP, detail: `${condition.detail}. ${condition.advice}${also}` };
  }

  recovered(): void {
    if (!this.#reflex) return;
    this.#reflex = undefined;
    for (const l of [...this.#listeners]) l();
  }

  close(): void {
    this.#watcher.close();
    this.#listeners.clear();
  }
}
