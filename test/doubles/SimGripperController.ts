/**
 * gripper_action_controller (control_msgs/action/GripperCommand) and
 * parallel_gripper_controller (ParallelGripperCommand), as the double runs
 * them. Source read:
 *
 *   [GRIP] ros-controls/ros2_controllers 4.42.1 @ aacd842600a09d556b983ac3d53a0983e9ebcbb1 and
 *          humble 2.54.0 @ a0c94b00958fcc566877234eda35b4976f8ccf3f,
 *          gripper_controllers/include/gripper_controllers/gripper_action_controller_impl.hpp
 *          (update, check_for_success, accepted_callback, preempt_active_goal, cancel_callback) and
 *          gripper_controllers/src/gripper_action_controller_parameters.yaml;
 *          parallel_gripper_controller/include/.../parallel_gripper_action_controller_impl.hpp
 *
 * - reached_goal once |goal − position| < goal_tolerance (default 0.01 in
 *   controller units), after which it goes on commanding the goal position;
 * - a stall only when |measured velocity| ≤ stall_velocity_threshold (0.001)
 *   has lasted stall_timeout (1 s): a velocity reading noisier than that
 *   keeps resetting last_movement_time_, and the goal never ends; a stall
 *   aborts (or, with allow_stalling, succeeds) with stalled true, and the
 *   command stays at the goal — the gripper keeps pushing;
 * - no feedback;
 * - a newer goal preempts at once: setCanceled on a handle whose last
 *   reference goes when rt_active_goal_ is overwritten, so ~ServerGoalHandle
 *   sends CANCELED with an empty result immediately (`cancel_now`);
 * - a cancel holds the current position.
 */
import type { GoalRecord } from "./simGoalHandles.js";
import { SimActionServer, type PreemptionMode } from "./simGoalHandles.js";
import type { SimWorld } from "./simWorld.js";

export const TYPE_GRIPPER = "control_msgs/action/GripperCommand";
export const TYPE_PARALLEL = "control_msgs/action/ParallelGripperCommand";

export interface SimGripperOptions {
  readonly actionName: string;
  readonly kind: "gripper_command" | "parallel_gripper";
  readonly joint: string;
  /** Controller units per second. */
  readonly velocity?: number;
  /** goal_tolerance in controller units; the controller default is 0.01 [GRIP]. */
  readonly goalTolerance?: number;
  /** stall_timeout (s); the controller default is 1.0 [GRIP]. */
  readonly stallTimeoutS?: number;
  /** stall_velocity_threshold; the controller default is 0.001 [GRIP]. */
  readonly stallVelocityThreshold?: number;
  /** allow_stalling: a stall succeeds (stalled true, reached_goal false) instead of aborting. */
  readonly allowStalling?: boolean;
  /**
   * The hardware's velocity state: `measured` (the joint's velocity with its noise), or `never_updated`:
   * ros2_robotiq_gripper's hardware interface sets it to 0 on activation and read() never writes it
   * (robotiq_driver/src/hardware_interface.cpp, PickNikRobotics/ros2_robotiq_gripper @ 04412cc3), so the
   * stall check sees a gripper at rest from the first cycle.
   */
  readonly velocityState?: "measured" | "never_updated";
}

export class SimGripperController extends SimActionServer {
  target: number | undefined;
  lastMoveMs = 0;
  constructor(
    readonly world: SimWorld,
    readonly options: SimGripperOptions,
    readonly monitorPeriodMs: number,
  ) {
    super(options.actionName, options.kind === "parallel_gripper" ? TYPE_PARALLEL : TYPE_GRIPPER);
  }

  protected preemptionMode(): PreemptionMode {
    return "cancel_now";
  }

  parameters(): Record<string, unknown> {
    return {
      joint: this.options.joint,
      goal_tolerance: this.options.goalTolerance ?? 0.01,
      max_effort: 0,
      allow_stalling: this.options.allowStalling ?? false,
      stall_velocity_threshold: this.options.stallVelocityThreshold ?? 0.001,
      stall_timeout: this.options.stallTimeoutS ?? 1.0,
      action_monitor_rate: 1000 / this.monitorPeriodMs,
    };
  }

  emptyResult(): Record<string, unknown> {
    return this.options.kind === "parallel_gripper"
      ? {
          state: {
            name: [],
            position: new Float64Array(0),
            velocity: new Float64Array(0),
            effort: new Float64Array(0),
          },
          stalled: false,
          reached_goal: false,
        }
      : { position: 0, effort: 0, stalled: false, reached_goal: false };
  }

  #targetOf(goal: unknown): number | undefined {
    const g = goal as { command?: { position?: number | ArrayLike<number> } };
    const p = g.command?.position;
    if (this.options.kind === "parallel_gripper") return typeof p === "object" && p.length === 1 ? p[0] : undefined;
    return typeof p === "number" ? p : undefined;
  }

  validate(goal: unknown): string | undefined {
    return this.#targetOf(goal) === undefined ? "wrong number of position values" : undefined;
  }

  protected start(goal: unknown, _record: GoalRecord): void {
    this.target = this.#targetOf(goal);
    this.lastMoveMs = this.world.now();
  }

  #result(reached: boolean, stalled: boolean): Record<string, unknown> {
    const position = this.world.position(this.options.joint);
    return this.options.kind === "parallel_gripper"
      ? {
          state: {
            name: [this.options.joint],
            position: Float64Array.of(position),
            velocity: new Float64Array(0),
            effort: Float64Array.of(0),
          },
          stalled,
          reached_goal: reached,
        }
      : { position, effort: 0, stalled, reached_goal: reached };
  }

  protected stopForCancel(): void {
    // set_hold_position: the command becomes the current position.
    this.target = this.world.position(this.options.joint);
    this.world.setVelocity(this.options.joint, 0);
  }

  tick(dtS: number): void {
    const active = this.active;
    const target = this.target;
    if (target === undefined) return;
    const nowMs = this.world.now();
    const joint = this.options.joint;
    const p = this.world.position(joint);
    const speed = this.options.velocity ?? 0.05;
    const step = Math.sign(target - p) * Math.min(Math.abs(target - p), speed * dtS);
    this.world.drive(joint, p + step, dtS > 0 ? step / dtS : 0);
    if (!active) return;
    if (Math.abs(this.world.position(joint) - target) < (this.options.goalTolerance ?? 0.01)) {
      active.requestEnd("succeed", this.#result(true, false));
      this.active = undefined;
      return;
    }
    // check_for_success: movement is judged on the velocity state interface, noise included.
    const velocity = this.options.velocityState === "never_updated" ? 0 : this.world.measuredVelocity(joint);
    if (Math.abs(velocity) > (this.options.stallVelocityThreshold ?? 0.001)) this.lastMoveMs = nowMs;
    else if (nowMs - this.lastMoveMs > (this.options.stallTimeoutS ?? 1.0) * 1000) {
      active.requestEnd(this.options.allowStalling ? "succeed" : "abort", this.#result(false, true));
      this.active = undefined;
    }
  }
}
