import type { ArmActionState } from "../Transport.js";
import type { RclActionClient, RclClientGoalHandle } from "./rclTypes.js";

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
  /** The reason is not in the result but in the server node's /rosout (franka_gripper's libfranka errors). */
  readonly causeOnRosout?: boolean;
}

/** Turns a terminal status and result into an outcome: trajectoryOutcome or gripperOutcome, with what each needs. */
export type ResultInterpreter = (status: number | undefined, result: unknown, run: GoalRun) => RunOutcome;

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
  /** Local ms of the last feedback for this goal, fresh or republished. */
  lastFeedbackMs: number | undefined;
  /**
   * Local ms of the last feedback that said something new. realtime_tools
   * republishes a goal's last feedback on every goal-handle tick while it
   * executes (RealtimeServerGoalHandle::runNonRealtime never clears
   * req_feedback_, ros-controls/realtime_tools jazzy @ 0a483005), so feedback
   * arriving proves only that the goal is executing; JTC's control loop
   * stamps each update, and a stamp that stops advancing means the loop
   * stopped working for this goal.
   */
  lastFreshFeedbackMs: number | undefined;
  /** The last feedback message (FJT: its error names the joint off its path). */
  lastFeedback: unknown;
  /** Local ms when the goal was sent. */
  sentAtMs: number | undefined;
  /** Local ms when the goal response said accepted. */
  acceptedMs: number | undefined;
  /** Local ms when a cancel request for this goal was accepted (return_code 0). */
  cancelAcceptedMs: number | undefined;
  /** Local ms when we preempted this goal ourselves with a hold goal (halt). */
  haltedByUsMs: number | undefined;
  #now: () => number = Date.now;
  #presumed: RunOutcome | undefined;
  #amended: RunOutcome | undefined;
  #lastStampKey: string | undefined;
  /** Resolves when the goal response arrived (or the run was lost). */
  readonly responded: Promise<void>;
  /** Resolves when the run reached a terminal phase. */
  readonly finished: Promise<void>;
  #resolveResponded!: () => void;
  #resolveFinished!: () => void;
  readonly #onChange: () => void;
  readonly #interpret: ResultInterpreter;

  constructor(server: GoalServer, actionName: string, onChange: () => void, interpret: ResultInterpreter) {
    this.server = server;
    this.actionName = actionName;
    this.#onChange = onChange;
    this.#interpret = interpret;
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

  /** Replaces the controller's verdict with a stricter one from /joint_states or /rosout. */
  amend(outcome: RunOutcome): void {
    this.#amended = outcome;
  }

  /** Sends the goal; every later step is driven by rclnodejs's promises, never awaited here. */
  start(
    client: RclActionClient,
    goal: object,
    onFeedback: (feedback: unknown) => void,
    now: () => number = Date.now,
  ): void {
    this.#now = now;
    this.sentAtMs = now();
    let sent: Promise<RclClientGoalHandle>;
    try {
      sent = client.sendGoal(goal, (feedback: unknown) => {
        const t = now();
        this.lastFeedbackMs = t;
        this.lastFeedback = feedback;
        const key = stampKey(feedback);
        if (key === undefined || key !== this.#lastStampKey) this.lastFreshFeedbackMs = t;
        this.#lastStampKey = key;
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

  /** The ArmActionState this run ended in, and why. Undefined while running or when lost. */
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
        return this.status === undefined
          ? p
          : { state: p.state, detail: `${p.detail}; result later: status ${this.status}` };
      }
      case "ended":
        return this.#interpret(this.status, this.result ?? {}, this);
    }
  }
}

/** A feedback message's header stamp as a key (undefined when it has none: franka_gripper's feedback). */
function stampKey(feedback: unknown): string | undefined {
  const stamp = (feedback as { header?: { stamp?: { sec?: number; nanosec?: number } } } | undefined)?.header?.stamp;
  return stamp && typeof stamp.sec === "number" ? `${stamp.sec}.${stamp.nanosec ?? 0}` : undefined;
}
