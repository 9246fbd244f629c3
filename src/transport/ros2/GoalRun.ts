import { FjtErrorCode, GoalStatus, type FollowJointTrajectoryResult, type GripperResult, type RclActionClient, type RclClientGoalHandle } from "./rclTypes.js";
import type { ActionState } from "../Transport.js";

export type GoalServer = { readonly kind: "trajectory"; readonly controller: string } | { readonly kind: "gripper" };

export type GoalRunPhase =
  /** Sent, no goal response yet. */
  | "sending"
  | "accepted"
  | "rejected"
  /** A result arrived; `status` holds the terminal GoalStatus. */
  | "ended"
  /** rclnodejs threw or rejected: we no longer know what the server did with the goal. */
  | "lost";

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
    return this.phase === "rejected" || this.phase === "ended" || this.phase === "lost";
  }

  /** Sends the goal; every later step is driven by rclnodejs's promises, never awaited here. */
  start(client: RclActionClient, goal: object, onFeedback: (feedback: unknown) => void): void {
    let sent: Promise<RclClientGoalHandle>;
    try {
      sent = client.sendGoal(goal, onFeedback);
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
   * The ActionState this run ended in, judged by goal status, never by
   * error_code alone: JTC answers a cancelled goal with error_code 0 too.
   * Undefined while running or when lost.
   */
  outcome(): { state: ActionState; detail: string } | undefined {
    switch (this.phase) {
      case "sending":
      case "accepted":
      case "lost":
        return undefined;
      case "rejected":
        return { state: "rejected", detail: `goal rejected by ${this.actionName}` };
      case "ended":
        return this.server.kind === "trajectory" ? this.#trajectoryOutcome() : this.#gripperOutcome();
    }
  }

  #trajectoryOutcome(): { state: ActionState; detail: string } {
    const r = (this.result ?? {}) as Partial<FollowJointTrajectoryResult>;
    const code = r.error_code ?? 0;
    const text = `${this.actionName}: status ${this.status ?? "?"}, error_code ${code}${r.error_string ? ` (${r.error_string})` : ""}`;
    // `status` is a number from the wire: anything but the three terminal codes is a fault.
    if (this.status === GoalStatus.SUCCEEDED) {
      return code === FjtErrorCode.SUCCESSFUL ? { state: "reached", detail: text } : { state: "faulted", detail: text };
    }
    if (this.status === GoalStatus.CANCELED) return { state: "stopped", detail: text };
    if (this.status === GoalStatus.ABORTED) {
      if (code === FjtErrorCode.PATH_TOLERANCE_VIOLATED || code === FjtErrorCode.GOAL_TOLERANCE_VIOLATED) return { state: "stalled", detail: text };
      // Jazzy's JTC aborts the active goal with INVALID_GOAL when a new goal preempts it.
      if (code === FjtErrorCode.INVALID_GOAL) return { state: "stopped", detail: text };
    }
    return { state: "faulted", detail: text };
  }

  #gripperOutcome(): { state: ActionState; detail: string } {
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
