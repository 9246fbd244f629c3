/**
 * The goal-handle machinery the simulated controllers share: rclcpp_action's
 * ServerGoalHandle states plus realtime_tools' RealtimeServerGoalHandle, whose
 * requests the control loop sets and whose `runNonRealtime` (on the
 * controller's goal handle timer) turns into results and feedback.
 *
 *   [RTGH] ros-controls/realtime_tools jazzy @ 0a4830057f55cad52ff2ac8b167f0fb45095619c
 *          realtime_tools/include/realtime_tools/realtime_server_goal_handle.hpp
 *          (humble @ 3e85fba8f44e9982e7c5d15ef05cd5b60ae9eb32,
 *          include/realtime_tools/realtime_server_goal_handle.hpp: same runNonRealtime)
 *   [SGH]  ros2/rclcpp humble and jazzy, rclcpp_action/include/rclcpp_action/server_goal_handle.hpp
 *          (~ServerGoalHandle: a handle destroyed while not terminal ends CANCELED, empty result)
 */
import type { Deliver } from "./simTopicBus.js";

export const GOAL_STATUS = {
  UNKNOWN: 0,
  ACCEPTED: 1,
  EXECUTING: 2,
  CANCELING: 3,
  SUCCEEDED: 4,
  CANCELED: 5,
  ABORTED: 6,
} as const;

/**
 * How a server treats its active goal when a new one arrives:
 * - `delayed_cancel`: setCanceled, but the goal handle timer is replaced by
 *   the new goal's before it runs, so no result is sent; the old handle lives
 *   on until the preempting goal ends, and ~ServerGoalHandle then sends
 *   CANCELED with an empty result (JTC on Humble and Jazzy < 4.41.0;
 *   ros2_controllers issue #1519).
 * - `abort_now`: setAborted(INVALID_GOAL, "...preempted by new incoming
 *   action.") and runNonRealtime() at once (JTC, Jazzy ≥ 4.41.0).
 * - `cancel_now`: the old handle's last reference goes at once, so
 *   ~ServerGoalHandle ends it CANCELED with an empty result at once
 *   (gripper_action_controller: rt_active_goal_ is only ever read with
 *   readFromNonRT, so writing the new goal drops the old one;
 *   parallel_gripper_controller: a single-slot box).
 */
export type PreemptionMode = "delayed_cancel" | "abort_now" | "cancel_now";

type EndRequest = { readonly kind: "succeed" | "abort" | "cancel"; readonly result: Record<string, unknown> };

interface Pending {
  resolve: (v: unknown) => void;
}

/** One goal as the server side sees it: rclcpp_action's state plus the realtime handle's pending request. */
export class GoalRecord {
  status: number = GOAL_STATUS.EXECUTING;
  result: Record<string, unknown> | undefined;
  /** RealtimeServerGoalHandle's req_* flag set by the control loop, sent by runNonRealtime [RTGH]. */
  request: EndRequest | undefined;
  /**
   * req_feedback_: the last feedback the control loop set. runNonRealtime
   * publishes it on *every* tick while the goal executes and never clears it
   * [RTGH], so a control loop that stopped updating it is republished as is.
   */
  feedbackMessage: unknown;
  /** How many feedback messages went out for this goal. */
  feedbackSent = 0;
  /** The goal message as the server received it. */
  goal: unknown;
  /** The goal that preempted this one, if one did. */
  preemptedBy: GoalRecord | undefined;
  /** Largest acceleration (physical, rad/s²) the controller commanded at the start of this goal. */
  peakAcceleration = 0;
  /** Largest step of commanded velocity (rad/s) at the start of this goal: speed scaling turns v into s·v. */
  startVelocityStep = 0;
  readonly resultWaiters: Array<{ pending: Pending; deliver: Deliver }> = [];
  constructor(
    readonly id: number,
    readonly server: SimActionServer,
    readonly feedback: ((fb: unknown) => void) | undefined,
    readonly deliver: Deliver,
  ) {}

  get terminal(): boolean {
    return this.status >= GOAL_STATUS.SUCCEEDED;
  }

  get active(): boolean {
    return (
      this.status === GOAL_STATUS.ACCEPTED ||
      this.status === GOAL_STATUS.EXECUTING ||
      this.status === GOAL_STATUS.CANCELING
    );
  }

  /** setSucceeded / setAborted / setCanceled: only the first request counts [RTGH]. */
  requestEnd(kind: EndRequest["kind"], result: Record<string, unknown>): void {
    if (this.request || this.terminal) return;
    this.request = { kind, result };
  }

  /** RealtimeServerGoalHandle::runNonRealtime [RTGH]: succeed is suppressed while canceling; feedback goes out every tick. */
  runNonRealtime(): void {
    if (this.terminal) return;
    const r = this.request;
    if (r?.kind === "abort" && this.status === GOAL_STATUS.EXECUTING) this.finish(GOAL_STATUS.ABORTED, r.result);
    else if (r?.kind === "cancel" && this.active) this.finish(GOAL_STATUS.CANCELED, r.result);
    else if (r?.kind === "succeed" && this.status !== GOAL_STATUS.CANCELING)
      this.finish(GOAL_STATUS.SUCCEEDED, r.result);
    if (this.feedbackMessage !== undefined && this.status === GOAL_STATUS.EXECUTING)
      this.publishFeedback(this.feedbackMessage);
  }

  /** ServerGoalHandle::publish_feedback: a copy of the message as it is now. */
  publishFeedback(message: unknown): void {
    const cb = this.feedback;
    if (!cb || this.status !== GOAL_STATUS.EXECUTING) return;
    this.feedbackSent++;
    const copy = structuredClone(message);
    this.server.respond(this.deliver, () => cb(copy));
  }

  /** ~ServerGoalHandle [SGH]: a handle let go of while not terminal ends CANCELED with an empty result. */
  destroyHandle(): void {
    if (!this.terminal) this.finish(GOAL_STATUS.CANCELED, this.server.emptyResult());
  }

  finish(status: number, result: Record<string, unknown>): void {
    if (this.terminal) return;
    this.status = status;
    this.result = result;
    for (const w of this.resultWaiters.splice(0))
      this.server.respond(w.deliver, () => w.pending.resolve({ status, result }));
    this.server.onTerminal(this);
  }
}

/** One simulated action server (a JTC, a gripper controller, the Franka gripper node). */
export abstract class SimActionServer {
  alive = true;
  /** rt_active_goal_: the goal the control loop works for. */
  active: GoalRecord | undefined;
  /** The goal whose runNonRealtime the goal handle timer calls (the last one accepted). */
  monitored: GoalRecord | undefined;
  /** Handles kept alive elsewhere without a result, each released (→ CANCELED) when `until` ends [SGH]. */
  readonly orphans: Array<{ readonly record: GoalRecord; readonly until: GoalRecord }> = [];
  readonly goals: GoalRecord[] = [];
  /** Every goal message received, accepted or not, for assertions. */
  readonly received: unknown[] = [];
  constructor(
    readonly actionName: string,
    readonly typeClass: string,
  ) {}

  /** Schedules a response, unless the server is dead: then it never comes. */
  respond(deliver: Deliver, fn: () => void): void {
    if (!this.alive) return;
    deliver(() => {
      if (this.alive) fn();
    });
  }

  /**
   * The controller process goes down (a restart of controller_manager, an
   * E-stop that power-cycles the drives): its goals are forgotten — no result
   * is ever sent for them — and the hardware holds where it is. When it is
   * `alive` again it is a new incarnation with no goal (JTC's on_activate
   * holds the current position).
   */
  crash(): void {
    this.alive = false;
    this.holdForCrash();
    this.active = undefined;
    this.monitored = undefined;
    this.orphans.length = 0;
  }

  /** What the hardware does when the controller dies under it: by default what a cancel does. */
  protected holdForCrash(): void {
    this.stopForCancel();
  }

  abstract emptyResult(): Record<string, unknown>;
  abstract validate(goal: unknown): string | undefined;
  /** What the controller does with a new goal besides the goal-handle bookkeeping. */
  protected abstract start(goal: unknown, record: GoalRecord): void;
  /** The controller's cancel callback for its active goal. */
  protected abstract stopForCancel(): void;
  abstract tick(dtS: number): void;
  protected abstract preemptionMode(): PreemptionMode;

  /** goal_accepted_callback: preempt, then the new goal's timer replaces the old one. */
  accept(goal: unknown, record: GoalRecord): void {
    record.goal = goal;
    const previous = this.active;
    if (previous) this.preempt(previous, record);
    const replaced = this.monitored;
    this.active = record;
    this.monitored = record;
    this.start(goal, record);
    // The old timer goes: a handle only it held (a goal left CANCELING by a cancel that came
    // after the success request) is destroyed now, and ends CANCELED.
    if (replaced && replaced !== previous && !replaced.terminal && !this.orphans.some((o) => o.record === replaced))
      replaced.destroyHandle();
  }

  protected preempt(previous: GoalRecord, next: GoalRecord): void {
    previous.preemptedBy = next;
    switch (this.preemptionMode()) {
      case "abort_now":
        previous.requestEnd("abort", this.abortPreemptResult());
        previous.runNonRealtime();
        return;
      case "delayed_cancel":
        previous.requestEnd("cancel", this.preemptResult());
        // Its timer is about to be replaced, so nothing sends that result; the handle lives on until `next` ends.
        this.orphans.push({ record: previous, until: next });
        return;
      case "cancel_now":
        previous.destroyHandle();
        return;
    }
  }

  protected preemptResult(): Record<string, unknown> {
    return this.emptyResult();
  }

  protected abortPreemptResult(): Record<string, unknown> {
    return this.emptyResult();
  }

  /** rclcpp_action's cancel service, then the controller's cancel callback. Returns action_msgs/CancelGoal return_code. */
  cancel(record: GoalRecord): number {
    if (record.terminal) return 3;
    record.status = GOAL_STATUS.CANCELING;
    if (this.active === record) {
      record.requestEnd("cancel", this.emptyResult());
      this.active = undefined;
      this.stopForCancel();
    }
    return 0;
  }

  /** The goal handle timer's tick (action_monitor_rate). */
  monitor(): void {
    this.monitored?.runNonRealtime();
  }

  onTerminal(record: GoalRecord): void {
    for (let i = this.orphans.length - 1; i >= 0; i--) {
      const o = this.orphans[i];
      if (o?.until === record) {
        this.orphans.splice(i, 1);
        o.record.destroyHandle();
      }
    }
  }
}
