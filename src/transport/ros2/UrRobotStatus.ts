import { QosPolicy, type Rclnodejs, type RclNode } from "./rclTypes.js";
import { TopicSubscriptions } from "./TopicSubscriptions.js";

export const MSG_UR_SAFETY_MODE = "ur_dashboard_msgs/msg/SafetyMode";
export const MSG_UR_ROBOT_MODE = "ur_dashboard_msgs/msg/RobotMode";
export const MSG_BOOL = "std_msgs/msg/Bool";

/** Where ur_robot_driver's GPIO controller publishes the robot's state (ur_controllers.yaml names it so). */
export const UR_STATUS_NODE = "/io_and_status_controller";

/** ur_dashboard_msgs/msg/SafetyMode constants (Universal_Robots_ROS2_Driver main @ 696e1a7b). */
const SAFETY_MODES: Readonly<Record<number, string>> = {
  1: "NORMAL",
  2: "REDUCED",
  3: "PROTECTIVE_STOP",
  4: "RECOVERY",
  5: "SAFEGUARD_STOP",
  6: "SYSTEM_EMERGENCY_STOP",
  7: "ROBOT_EMERGENCY_STOP",
  8: "VIOLATION",
  9: "FAULT",
  10: "VALIDATE_JOINT_ID",
  11: "UNDEFINED_SAFETY_MODE",
  12: "AUTOMATIC_MODE_SAFEGUARD_STOP",
  13: "SYSTEM_THREE_POSITION_ENABLING_STOP",
};
/** Safety modes in which the arm runs motions: NORMAL, REDUCED; UNDEFINED says nothing either way. */
const MOVING_SAFETY_MODES = new Set([1, 2, 11]);

/** ur_dashboard_msgs/msg/RobotMode constants (same commit). */
const ROBOT_MODES: Readonly<Record<number, string>> = {
  [-1]: "NO_CONTROLLER",
  0: "DISCONNECTED",
  1: "CONFIRM_SAFETY",
  2: "BOOTING",
  3: "POWER_OFF",
  4: "POWER_ON",
  5: "IDLE",
  6: "BACKDRIVE",
  7: "RUNNING",
  8: "UPDATING_FIRMWARE",
};
const ROBOT_MODE_RUNNING = 7;

/**
 * Why a connected UR cannot move, with UR's own advice:
 * - `safety_stop`: a protective stop, an E-stop, a safeguard stop or a fault.
 *   The controller pauses the program and the speed scaling reads 0, exactly
 *   as a pause does; UR warns that resuming continues the old motion and
 *   advises stopping and restarting the program (ur_robot_driver
 *   doc/robot_state_helper.rst).
 * - `not_ready`: the External Control program is not running, or the robot
 *   is not powered with its brakes released. ur_robot_driver's
 *   controller_stopper deactivates every motion controller while
 *   `robot_program_running` is false (src/controller_stopper.cpp,
 *   robotRunningCallback), so JTC refuses goals "Controller is not running.".
 */
export interface UrArmCondition {
  readonly kind: "safety_stop" | "not_ready";
  /** What the robot reports, in words for an operator. */
  readonly detail: string;
  /** What a person does about it. */
  readonly advice: string;
}

export const SAFETY_STOP_ADVICE =
  "Clear the cause and unlock the stop on the teach pendant, then stop the External Control program and start it again (press Play, or call /dashboard_client/stop and /dashboard_client/play); do not resume the paused program: it would continue the motion it was running";
export const PROGRAM_ADVICE =
  "Start the External Control program: press Play on the teach pendant, call /dashboard_client/play (Remote Control mode), or call /io_and_status_controller/resend_robot_program (headless mode)";
export const POWER_ADVICE =
  "Power the robot on and release its brakes on the teach pendant (or /dashboard_client/power_on and /dashboard_client/brake_release), then start the External Control program";

export interface UrRobotStatusDeps {
  readonly rcl: Rclnodejs;
  readonly node: RclNode;
  /** A source that cannot be subscribed to (ur_dashboard_msgs missing from this install): said once, and left out. */
  readonly warn: (what: string, error: unknown) => void;
}

/**
 * ur_robot_driver's io_and_status_controller (ur_controllers
 * src/gpio_controller.cpp): `~/safety_mode`, `~/robot_mode` and
 * `~/robot_program_running`, each published on change with a latched QoS
 * (reliable, transient local), so a late subscriber hears the current value.
 * On any other robot the topics never appear and nothing is ever reported.
 */
export class UrRobotStatus {
  readonly #deps: UrRobotStatusDeps;
  readonly #subscriptions: TopicSubscriptions;
  readonly #listeners = new Set<() => void>();
  #safetyMode: number | undefined;
  #robotMode: number | undefined;
  #programRunning: boolean | undefined;
  #signature = "";

  constructor(deps: UrRobotStatusDeps) {
    this.#deps = deps;
    this.#subscriptions = new TopicSubscriptions(deps.node, deps.warn);
  }

  start(): void {
    const { rcl } = this.#deps;
    const latched = new rcl.QoS(
      QosPolicy.HISTORY_KEEP_LAST,
      1,
      QosPolicy.RELIABILITY_RELIABLE,
      QosPolicy.DURABILITY_TRANSIENT_LOCAL,
    );
    this.#subscribe(MSG_UR_SAFETY_MODE, `${UR_STATUS_NODE}/safety_mode`, latched, (m) => {
      this.#safetyMode = numberField(m, "mode") ?? this.#safetyMode;
    });
    this.#subscribe(MSG_UR_ROBOT_MODE, `${UR_STATUS_NODE}/robot_mode`, latched, (m) => {
      this.#robotMode = numberField(m, "mode") ?? this.#robotMode;
    });
    this.#subscribe(MSG_BOOL, `${UR_STATUS_NODE}/robot_program_running`, latched, (m) => {
      const data = (m as { data?: unknown }).data;
      if (typeof data === "boolean") this.#programRunning = data;
    });
  }

  #subscribe(type: string, topic: string, qos: object, read: (msg: unknown) => void): void {
    const whenRead = (msg: unknown): void => {
      read(msg);
      this.#changed();
    };
    this.#subscriptions.add(
      type,
      topic,
      qos,
      whenRead,
      "a UR's protective stops and program state will not be told apart",
    );
  }

  close(): void {
    this.#subscriptions.close();
    this.#listeners.clear();
  }

  /** Called when the condition changes. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** What keeps the arm from moving now, or undefined (ready, or not a UR). A safety stop comes first: it is the cause. */
  condition(): UrArmCondition | undefined {
    const safety = this.#safetyMode;
    if (safety !== undefined && !MOVING_SAFETY_MODES.has(safety))
      return {
        kind: "safety_stop",
        detail: `the robot is in safety mode ${SAFETY_MODES[safety] ?? safety} (${UR_STATUS_NODE}/safety_mode); the controller paused its program`,
        advice: SAFETY_STOP_ADVICE,
      };
    const robot = this.#robotMode;
    if (robot !== undefined && robot !== ROBOT_MODE_RUNNING)
      return {
        kind: "not_ready",
        detail: `the robot is in mode ${ROBOT_MODES[robot] ?? robot}, not RUNNING (${UR_STATUS_NODE}/robot_mode)`,
        advice: POWER_ADVICE,
      };
    if (this.#programRunning === false)
      return {
        kind: "not_ready",
        detail: `the External Control program is not running (${UR_STATUS_NODE}/robot_program_running is false): ur_robot_driver's controller_stopper has deactivated the motion controllers`,
        advice: PROGRAM_ADVICE,
      };
    return undefined;
  }

  /** Each reading as the doctor shows it: undefined where nothing was heard. */
  readings(): { safetyMode?: string; robotMode?: string; programRunning?: boolean } {
    return {
      ...(this.#safetyMode !== undefined
        ? { safetyMode: SAFETY_MODES[this.#safetyMode] ?? `${this.#safetyMode}` }
        : {}),
      ...(this.#robotMode !== undefined ? { robotMode: ROBOT_MODES[this.#robotMode] ?? `${this.#robotMode}` } : {}),
      ...(this.#programRunning !== undefined ? { programRunning: this.#programRunning } : {}),
    };
  }

  #changed(): void {
    const c = this.condition();
    const signature = c ? `${c.kind}:${c.detail}` : "";
    if (signature === this.#signature) return;
    this.#signature = signature;
    for (const l of [...this.#listeners]) l();
  }
}

function numberField(msg: unknown, field: string): number | undefined {
  const v = (msg as Record<string, unknown> | undefined)?.[field];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
