/**
 * franka_gripper's node as the double runs it: its own
 * control_msgs/action/GripperCommand server on `~/gripper_action` (not a
 * ros2_control controller), and the fingers' JointState. Sources read:
 *
 *   [FG]  frankarobotics/franka_ros2 jazzy @ 29cb85a677b8f08888a0eb6f553ba89666ef64f7
 *         franka_gripper/src/gripper_action_server.cpp (onExecuteGripperCommand,
 *         executeGripperCommand, publishGripperState, publishGripperCommandFeedback),
 *         franka_gripper/include/franka_gripper/gripper_action_server.hpp (k_default_*),
 *         franka_gripper/config/franka_gripper_node.yaml, franka_gripper/launch/gripper.launch.py
 *   [LF]  libfranka src/gripper.cpp executeCommand: kFail → CommandException("libfranka gripper:
 *         Command failed!"), kUnsuccessful → false, kAborted → "libfranka gripper: Command aborted!"
 *
 * - The goal's `command.position` is half the width: target width = 2 × position.
 * - A target outside [0, max_width] is aborted at once (empty result: position 0, reached_goal false).
 * - |target − width| < 1e-4: succeeded at once.
 * - Wider than now: libfranka move(width, default_speed) → reached_goal true when it gets there.
 * - Narrower: grasp(width, default_speed, max_effort, epsilon inner 0.005, outer 0.005): the
 *   fingers close until they reach the width or meet an object; the grasp succeeds only if the final
 *   width is within [width − inner, width + outer]. Closing on an object wider than that (or on
 *   nothing when asked to hold something) is reached_goal false → ABORTED, stalled false.
 * - The result's `position` is the *width* (current_gripper_state_.width), effort 0; stalled is never set.
 * - Feedback while running, every 1/feedback_publish_rate s: `position` = the width, effort 0.
 * - A libfranka exception (the gripper in error, not homed, a lost connection) makes reached_goal
 *   false, ABORTED, and the node logs e.what() as an ERROR on /rosout: the result says nothing of it.
 * - A cancel stops the gripper; the running command is aborted, and the goal ends CANCELED with the
 *   command thread's own result, which nobody filled in: position 0, reached_goal false (the cancel
 *   branch of executeGripperCommand passes result_future.get() on as it is).
 * - [LF] Gripper::grasp: an object counts as grasped only if the fingers stop within
 *   (width − ε inner, width + ε outer); GripperState.is_grasped says whether one is. A grasp outside
 *   its ε keeps no grasp force on what it met (frankarobotics/franka_ros#16: fingers that touched a
 *   cube narrower than the commanded width stopped pressing and let it go; the maintainers' fix was
 *   the right width). `isGrasped` is that flag: true only after a grasp that succeeded.
 * - Every goal runs in its own thread; a newer command makes the gripper abort the running one
 *   (libfranka "Command aborted!"), so the older goal ends ABORTED, reached_goal false.
 * - `~/joint_states` at state_publish_rate (15 Hz from the shipped yaml, 30 by default): two finger
 *   joints at width / 2 each, velocity 0.0 always.
 */
import type { GoalRecord } from "./simGoalHandles.js";
import { GOAL_STATUS, SimActionServer, type PreemptionMode } from "./simGoalHandles.js";
import type { SimPublisher } from "./simTopicBus.js";
import { LOG_LEVEL, rosTime, type SimWorld } from "./simWorld.js";
import { TYPE_GRIPPER } from "./SimGripperController.js";

export const FRANKA_TEXT = {
  commandFailed: "libfranka gripper: Command failed!",
  commandAborted: "libfranka gripper: Command aborted!",
} as const;

export interface SimFrankaGripperOptions {
  /** Default /franka_gripper/gripper_action (node franka_gripper, gripper.launch.py). */
  readonly actionName?: string;
  /** The node's `joint_names`: `<robot_type>_finger_joint1/2`. */
  readonly joints?: readonly [string, string];
  readonly maxWidth?: number;
  /**
   * false: the Hand has not been homed since power-up, and libfranka's GripperState reports
   * max_width 0 until it is (frankarobotics/franka_ros#276): franka_gripper then refuses every width
   * above 0 as out of range. `home()` models the ~/homing action. Default true.
   */
  readonly homed?: boolean;
  /** default_speed (m/s). */
  readonly speed?: number;
  readonly epsilonInner?: number;
  readonly epsilonOuter?: number;
  readonly statePublishHz?: number;
  readonly feedbackPublishHz?: number;
  /** The fingers' width at start (m). */
  readonly width?: number;
}

interface RunningCommand {
  readonly record: GoalRecord;
  readonly kind: "move" | "grasp";
  readonly target: number;
  readonly startWidth: number;
  lastFeedbackMs: number;
}

export class SimFrankaGripper extends SimActionServer {
  readonly joints: readonly [string, string];
  readonly node = "franka_gripper";
  readonly maxWidth: number;
  /** Whether the Hand has been homed (see SimFrankaGripperOptions.homed). */
  homed: boolean;
  /** An object between the fingers: closing stops at its width. */
  objectWidth: number | undefined;
  #failNext: string | undefined;
  #running: RunningCommand | undefined;
  readonly #statePublisher: SimPublisher;
  #lastStateMs = 0;
  /** The widths the gripper was asked for, in order (ground truth of what it was told). */
  readonly commandedWidths: number[] = [];
  /** GripperState.is_grasped: the fingers press on an object (after a grasp that succeeded only). */
  isGrasped = false;

  constructor(
    readonly world: SimWorld,
    readonly options: SimFrankaGripperOptions,
  ) {
    super(options.actionName ?? "/franka_gripper/gripper_action", TYPE_GRIPPER);
    this.joints = options.joints ?? ["fr3_finger_joint1", "fr3_finger_joint2"];
    this.maxWidth = options.maxWidth ?? 0.08;
    this.homed = options.homed ?? true;
    const w = options.width ?? this.maxWidth;
    for (const j of this.joints) world.drive(j, w / 2, 0);
    this.#statePublisher = world.bus.advertise(`/${this.node}/joint_states`, "sensor_msgs/msg/JointState", this.node);
  }

  get width(): number {
    return 2 * this.world.position(this.joints[0]);
  }

  /** ~/homing: libfranka's homing runs the fingers through their stroke and leaves them open, max_width known. */
  home(): void {
    this.homed = true;
    for (const j of this.joints) this.world.drive(j, this.maxWidth / 2, 0);
  }

  /** The next command fails the way libfranka reports a gripper error (kFail). */
  failNextCommand(message: string = FRANKA_TEXT.commandFailed): void {
    this.#failNext = message;
  }

  parameters(): Record<string, unknown> {
    return {
      robot_ip: "172.16.0.2",
      "default_grasp_epsilon.inner": this.options.epsilonInner ?? 0.005,
      "default_grasp_epsilon.outer": this.options.epsilonOuter ?? 0.005,
      default_speed: this.options.speed ?? 0.1,
      joint_names: [...this.joints],
      state_publish_rate: BigInt(this.options.statePublishHz ?? 15),
      feedback_publish_rate: BigInt(this.options.feedbackPublishHz ?? 30),
    };
  }

  protected preemptionMode(): PreemptionMode {
    // Not used: accept() below gives each goal its own thread, as the node does.
    return "cancel_now";
  }

  emptyResult(): Record<string, unknown> {
    return { position: 0, effort: 0, stalled: false, reached_goal: false };
  }

  validate(goal: unknown): string | undefined {
    // handleGoal accepts every goal; the range is checked while executing.
    return typeof (goal as { command?: { position?: unknown } }).command?.position === "number"
      ? undefined
      : "no position";
  }

  override accept(goal: unknown, record: GoalRecord): void {
    record.goal = goal;
    if (this.active && this.active !== record) this.active.preemptedBy = record;
    this.monitored = record;
    this.start(goal, record);
  }

  protected start(goal: unknown, record: GoalRecord): void {
    const command = (goal as { command: { position: number; max_effort: number } }).command;
    const target = 2 * command.position;
    this.commandedWidths.push(target);
    const width = this.width;
    const maxWidth = this.homed ? this.maxWidth : 0;
    if (target > maxWidth || target < 0) {
      this.world.log(
        this.node,
        LOG_LEVEL.ERROR,
        `GripperServer: Commanding out of range width! max_width = ${maxWidth} command = ${target}`,
      );
      record.finish(GOAL_STATUS.ABORTED, this.emptyResult());
      return;
    }
    if (Math.abs(target - width) < 1e-4) {
      record.finish(GOAL_STATUS.SUCCEEDED, { position: width, effort: 0, stalled: false, reached_goal: true });
      return;
    }
    // The gripper runs one command: a newer one aborts the one under way.
    const previous = this.#running;
    if (previous) this.#end(previous, GOAL_STATUS.ABORTED, false, FRANKA_TEXT.commandAborted);
    const failure = this.#failNext;
    this.#failNext = undefined;
    const running: RunningCommand = {
      record,
      kind: target >= width ? "move" : "grasp",
      target,
      startWidth: width,
      lastFeedbackMs: this.world.now(),
    };
    // Any new command (a move, or a grasp until it succeeds) lets go of what the fingers held.
    this.isGrasped = false;
    if (failure !== undefined) {
      this.#end(running, GOAL_STATUS.ABORTED, false, failure);
      return;
    }
    this.#running = running;
    this.active = record;
  }

  protected stopForCancel(): void {
    // gripper_->stop(): the running command is aborted and the goal ends CANCELED.
    const running = this.#running;
    if (!running) return;
    this.isGrasped = false;
    this.#end(running, GOAL_STATUS.CANCELED, false, FRANKA_TEXT.commandAborted, this.emptyResult());
  }

  override cancel(record: GoalRecord): number {
    if (record.terminal) return 3;
    record.status = GOAL_STATUS.CANCELING;
    if (this.#running?.record === record) this.stopForCancel();
    return 0;
  }

  override monitor(): void {
    // No realtime goal handle: results and feedback go out from the command's thread.
  }

  #end(
    running: RunningCommand,
    status: number,
    reached: boolean,
    error?: string,
    result?: Record<string, unknown>,
  ): void {
    if (this.#running === running) this.#running = undefined;
    if (this.active === running.record) this.active = undefined;
    if (error !== undefined) this.world.log(this.node, LOG_LEVEL.ERROR, error);
    running.record.finish(status, result ?? { position: this.width, effort: 0, stalled: false, reached_goal: reached });
  }

  tick(dtS: number): void {
    const nowMs = this.world.now();
    const running = this.#running;
    if (running) this.#advance(running, dtS, nowMs);
    const periodMs = 1000 / (this.options.statePublishHz ?? 15);
    if (nowMs - this.#lastStateMs >= periodMs) {
      this.#lastStateMs = nowMs;
      const half = this.width / 2;
      this.#statePublisher.publish({
        header: { stamp: rosTime(nowMs), frame_id: "" },
        name: [...this.joints],
        position: Float64Array.of(half, half),
        velocity: Float64Array.of(0, 0),
        effort: Float64Array.of(0, 0),
      });
    }
  }

  #advance(running: RunningCommand, dtS: number, nowMs: number): void {
    const speed = this.options.speed ?? 0.1;
    const width = this.width;
    let next = width + Math.sign(running.target - width) * Math.min(Math.abs(running.target - width), speed * dtS);
    let blocked = false;
    const object = this.objectWidth;
    if (running.kind === "grasp" && object !== undefined && width >= object && next < object) {
      next = object;
      blocked = true;
    }
    const v = dtS > 0 ? (next - width) / 2 / dtS : 0;
    for (const j of this.joints) this.world.drive(j, next / 2, v);
    if (nowMs - running.lastFeedbackMs >= 1000 / (this.options.feedbackPublishHz ?? 30)) {
      running.lastFeedbackMs = nowMs;
      running.record.publishFeedback({ position: this.width, effort: 0 });
    }
    const arrived = Math.abs(this.width - running.target) < 1e-6;
    if (!arrived && !blocked) return;
    for (const j of this.joints) this.world.setVelocity(j, 0);
    if (running.kind === "move") {
      this.#end(running, GOAL_STATUS.SUCCEEDED, true);
      return;
    }
    const inner = this.options.epsilonInner ?? 0.005;
    const outer = this.options.epsilonOuter ?? 0.005;
    const w = this.width;
    const grasped = w >= running.target - inner && w <= running.target + outer;
    this.isGrasped = grasped;
    this.#end(running, grasped ? GOAL_STATUS.SUCCEEDED : GOAL_STATUS.ABORTED, grasped);
  }
}
