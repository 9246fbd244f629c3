import { FjtErrorCode, GoalStatus, type FollowJointTrajectoryResult, type GripperResult, type RclActionClient, type RclClientGoalHandle } from "./rclTypes.js";
import type { ArmActionState } from "../Transport.js";
import { deviceText } from "../../validation/deviceText.js";

export type GoalServer = { readonly kind: "trajectory"; readonly controller: string } | { readonly kind: "gripper" };

export type GoalRunPhase =
  /** Sent, no goal response yet. */
  | "sending"
  | "accepted"
  | "rejected"
  /** A result arrived; `status` holds the terminal GoalStatus. */
  | "ended"
  /** rclnodejs threw or rejected: we no longer know what the server did with the goal. */
  | "lost"
  /**
   * No result, but the controller has visibly let go of the goal (its feedback
   * stopped, or a cancel was accepted) and /joint_states settled the outcome:
   * see `presume`. A result that arrives later is kept for the detail.
   */
  | "presumed";

/** The ArmActionState a run ended in, and why. */
export interface RunOutcome {
  readonly state: ArmActionState;
  readonly detail: string;
}

/**
 * JTC's result strings for a goal preempted by a newer goal: Jazzy ≥ 4.41.0
 * aborts it with the first, Humble and Jazzy < 4.41.0 cancel it with the
 * second (ros-controls/ros2_controllers joint_trajectory_controller.cpp,
 * preempt_active_goal, tags 4.41.0 @ b69445a5 and 4.40.1 @ 31015e0a). The
 * same INVALID_GOAL code also ends a goal when the controller is deactivated
 * ("Current goal cancelled during deactivate transition.", on_deactivate):
 * that one is a fault, not a stop.
 */
const PREEMPTION_TEXTS = ["preempted by new incoming action", "cancelled due to new incoming action"];

/**
 * One goal on one action server, tracked from the moment it is sent until
 * its result, independently of anybody waiting for it: a caller whose wait
 * ended can still learn the outcome later through the action record.
 */
export class GoalRun {
  readonly server: GoalServer;
  readonly actionName: string;
  phase: GoalRunPhase = "sending";
  handle: RclClientGoalHandle | undefined;
  status: number | undefined;
  result: unknown;
  failure: unknown;
  /** Local ms of the last feedback for this goal (JTC publishes feedback only while the goal executes). */
  lastFeedbackMs: number | undefined;
  /** Local ms when the goal response said accepted. */
  acceptedMs: number | undefined;
  /** Local ms when a cancel request for this goal was accepted (return_code 0). */
  cancelAcceptedMs: number | undefined;
  #now: () => number = Date.now;
  #presumed: RunOutcome | undefined;
  #amended: RunOutcome | undefined;
  /** Resolves when the goal response arrived (or the run was lost). */
  readonly responded: Promise<void>;
  /** Resolves when the run reached a terminal phase. */
  readonly finished: Promise<void>;
  #resolveResponded!: () => void;
  #resolveFinished!: () => void;
  readonly #onChange: () => void;

  constructor(server: GoalServer, actionName: string, onChange: () => void) {
    this.server = server;
    this.actionName = actionName;
    this.#onChange = onChange;
    this.responded = new Promise((resolve) => (this.#resolveResponded = resolve));
    this.finished = new Promise((resolve) => (this.#resolveFinished = resolve));
  }

  get terminal(): boolean {
    return this.phase === "rejected" || this.phase === "ended" || this.phase === "lost" || this.phase === "presumed";
  }

  /**
   * Ends a run that has no result by what was observed: used when the
   * controller no longer works for this goal but will send its result only
   * later (Humble/Jazzy < 4.41 preemption; a cancel that landed after the
   * success request, realtime_server_goal_handle suppressing `succeed` while
   * canceling).
   */
  presume(outcome: RunOutcome): void {
    if (this.terminal) return;
    this.#presumed = outcome;
    this.phase = "presumed";
    this.#resolveFinished();
    this.#onChange();
  }

  /** Replaces the controller's verdict with a stricter one from /joint_states (a gripper short of our tolerance). */
  amend(outcome: RunOutcome): void {
    this.#amended = outcome;
  }

  /** Sends the goal; every later step is driven by rclnodejs's promises, never awaited here. */
  start(client: RclActionClient, goal: object, onFeedback: (feedback: unknown) => void, now: () => number = Date.now): void {
    this.#now = now;
    let sent: Promise<RclClientGoalHandle>;
    try {
      sent = client.sendGoal(goal, (feedback: unknown) => {
        this.lastFeedbackMs = now();
        onFeedback(feedback);
      });
    } catch (error) {
      this.#lose(error);
      return;
    }
    void sent.then(
      (handle) => this.#onGoalResponse(handle),
      (error: unknown) => this.#lose(error),
    );
  }

  #onGoalResponse(handle: RclClientGoalHandle): void {
    this.handle = handle;
    if (!handle.isAccepted()) {
      this.phase = "rejected";
      this.#resolveResponded();
      this.#resolveFinished();
      this.#onChange();
      return;
    }
    this.phase = "accepted";
    this.acceptedMs = this.#now();
    this.#resolveResponded();
    this.#onChange();
    let result: Promise<unknown>;
    try {
      result = handle.getResult();
    } catch (error) {
      this.#lose(error);
      return;
    }
    void result.then(
      (value) => {
        // getResult copies the result response's status into the handle before resolving.
        this.status = handle.status;
        this.result = value;
        // A presumed run keeps its verdict; the late result only adds to the detail.
        if (this.phase === "presumed") return;
        this.phase = "ended";
        this.#resolveFinished();
        this.#onChange();
      },
      (error: unknown) => this.#lose(error),
    );
  }

  #lose(error: unknown): void {
    if (this.terminal) return;
    this.failure = error;
    this.phase = "lost";
    this.#resolveResponded();
    this.#resolveFinished();
    this.#onChange();
  }

  /**
   * The ArmActionState this run ended in, judged by goal status, never by
   * error_code alone: JTC answers a cancelled goal with error_code 0 too.
   * Undefined while running or when lost.
   */
  outcome(): RunOutcome | undefined {
    if (this.#amended) return this.#amended;
    switch (this.phase) {
      case "sending":
      case "accepted":
      case "lost":
        return undefined;
      case "rejected":
        return { state: "rejected", detail: `goal rejected by ${this.actionName}` };
      case "presumed": {
        const p = this.#presumed ?? { state: "stopped", detail: this.actionName };
        return this.status === undefined ? p : { state: p.state, detail: `${p.detail}; result later: status ${this.status}` };
      }
      case "ended":
        return this.server.kind === "trajectory" ? this.#trajectoryOutcome() : this.#gripperOutcome();
    }
  }

  #trajectoryOutcome(): RunOutcome {
    const r = (this.result ?? {}) as Partial<FollowJointTrajectoryResult>;
    const code = r.error_code ?? 0;
    const text = `${this.actionName}: status ${this.status ?? "?"}, error_code ${code}${r.error_string ? ` ${deviceText(`the controller behind ${this.actionName}`, r.error_string)}` : ""}`;
    // `status` is a number from the wire: anything but the three terminal codes is a fault.
    if (this.status === GoalStatus.SUCCEEDED) {
      return code === FjtErrorCode.SUCCESSFUL ? { state: "reached", detail: text } : { state: "faulted", detail: text };
    }
    if (this.status === GoalStatus.CANCELED) return { state: "stopped", detail: text };
    if (this.status === GoalStatus.ABORTED) {
      if (code === FjtErrorCode.PATH_TOLERANCE_VIOLATED || code === FjtErrorCode.GOAL_TOLERANCE_VIOLATED) return { state: "stalled", detail: text };
      // INVALID_GOAL is a preemption only with JTC's preemption text; a deactivated controller
      // (controller switch, E-stop) sends the same code, and that is a fault.
      if (code === FjtErrorCode.INVALID_GOAL && PREEMPTION_TEXTS.some((t) => r.error_string?.includes(t))) return { state: "stopped", detail: text };
    }
    return { state: "faulted", detail: text };
  }

  #gripperOutcome(): RunOutcome {
    const r = (this.result ?? {}) as Partial<GripperResult>;
    const text = `${this.actionName}: status ${this.status ?? "?"}, reached_goal ${String(r.reached_goal)}, stalled ${String(r.stalled)}`;
    if (this.status === GoalStatus.SUCCEEDED) {
      // With allow_stalling the gripper controller reports a stall (an object in the way) as success.
      return r.stalled && !r.reached_goal ? { state: "stalled", detail: text } : { state: "reached", detail: text };
    }
    if (this.status === GoalStatus.CANCELED) return { state: "stopped", detail: text };
    if (this.status === GoalStatus.ABORTED && r.stalled) return { state: "stalled", detail: text };
    return { state: "faulted", detail: text };
  }
}
