/**
 * The simulated ros2_control controllers behind the rclnodejs double: a
 * joint_trajectory_controller (JTC) and a gripper action controller, with the
 * goal-handle machinery they share (realtime_tools' RealtimeServerGoalHandle
 * over rclcpp_action's ServerGoalHandle). Sources read, with the commits:
 *
 *   [JTC-H]  ros-controls/ros2_controllers humble @ ad559d9c8054f128296ac094d7130e162e61b37a
 *            joint_trajectory_controller/src/joint_trajectory_controller.cpp
 *   [JTC-40] ros-controls/ros2_controllers 4.40.1 @ 31015e0aa7ce9d0853a88d5fc2fe50f0e583ba5c (same file)
 *   [JTC-41] ros-controls/ros2_controllers 4.41.0 @ b69445a5c72bc1b0dfc0658ce992748e65e94cf6 (same file;
 *            commit 4ab98223c "Deliver abort action result before destroying goal handle on
 *            preemption (backport #2422)")
 *   [TOL]    ros-controls/ros2_controllers jazzy @ ed360c97d6e9e74cb884e3e39a949d987cd15c11
 *            joint_trajectory_controller/include/joint_trajectory_controller/tolerances.hpp
 *   [GRIP]   same commit, gripper_controllers/include/gripper_controllers/gripper_action_controller_impl.hpp
 *            and gripper_controllers/src/gripper_action_controller_parameters.yaml
 *   [RTGH]   ros-controls/realtime_tools jazzy @ 0a4830057f55cad52ff2ac8b167f0fb45095619c
 *            realtime_tools/include/realtime_tools/realtime_server_goal_handle.hpp
 *            (humble @ 3e85fba8f44e9982e7c5d15ef05cd5b60ae9eb32: same runNonRealtime)
 *   [SGH]    ros2/rclcpp humble and jazzy, rclcpp_action/include/rclcpp_action/server_goal_handle.hpp
 *            (~ServerGoalHandle: a handle destroyed while not terminal ends CANCELED, empty result)
 */

export const GOAL_STATUS = { UNKNOWN: 0, ACCEPTED: 1, EXECUTING: 2, CANCELING: 3, SUCCEEDED: 4, CANCELED: 5, ABORTED: 6 } as const;
export const FJT = { SUCCESSFUL: 0, INVALID_GOAL: -1, INVALID_JOINTS: -2, GOAL_TOLERANCE_VIOLATED: -5 } as const;
export const TYPE_FJT = "control_msgs/action/FollowJointTrajectory";
export const TYPE_GRIPPER = "control_msgs/action/GripperCommand";
export const TYPE_PARALLEL = "control_msgs/action/ParallelGripperCommand";

/** Error strings JTC puts in results, verbatim from [JTC-40]/[JTC-41]. */
export const JTC_TEXT = {
  preemptedBefore441: "Current goal cancelled due to new incoming action.",
  preempted: "Current goal preempted by new incoming action.",
  deactivated: "Current goal cancelled during deactivate transition.",
  succeeded: "Goal successfully reached!",
} as const;

/**
 * How a JTC treats its active goal when a new one arrives:
 * - `delayed_cancel` (Humble, Jazzy before ros2_controllers 4.41.0, and every
 *   gripper controller): preempt_active_goal() calls setCanceled, but the goal
 *   handle timer is replaced by the new goal's before it runs, so no result is
 *   sent; the old handle is destroyed only when the preempting goal ends, and
 *   ~ServerGoalHandle then sends CANCELED with an empty result [JTC-40, RTGH,
 *   SGH; ros2_controllers issue #1519].
 * - `abort_now` (Jazzy ≥ 4.41.0): setAborted(INVALID_GOAL, "...preempted by new
 *   incoming action.") and runNonRealtime() at once [JTC-41].
 */
export type PreemptionMode = "delayed_cancel" | "abort_now";

export type Deliver = (fn: () => void) => void;

/** What the controllers need from the simulated graph. */
export interface SimWorld {
  /** ROS time in ms (sim time under a sim clock). */
  now(): number;
  readonly speedScaling: number;
  readonly preemption: PreemptionMode;
  position(joint: string): number;
  velocity(joint: string): number;
  /** The velocity a state interface reads: true velocity plus sensor noise. */
  measuredVelocity(joint: string): number;
  drive(joint: string, position: number, velocity: number): void;
  setVelocity(joint: string, velocity: number): void;
  /** False while the graph is partitioned from our node: nothing of ours reaches a server, nothing of theirs reaches us. */
  readonly reachable: boolean;
}

interface Pending {
  resolve: (v: unknown) => void;
}

type EndRequest = { readonly kind: "succeed" | "abort" | "cancel"; readonly result: Record<string, unknown> };

/** One goal as the server side sees it: rclcpp_action's state plus the realtime handle's pending request. */
export class GoalRecord {
  status: number = GOAL_STATUS.EXECUTING;
  result: Record<string, unknown> | undefined;
  /** RealtimeServerGoalHandle's req_* flag set by the control loop, sent by runNonRealtime [RTGH]. */
  request: EndRequest | undefined;
  pendingFeedback: unknown;
  /** Largest acceleration (physical, rad/s²) the controller commanded under this goal. */
  peakAcceleration = 0;
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
    return this.status === GOAL_STATUS.ACCEPTED || this.status === GOAL_STATUS.EXECUTING || this.status === GOAL_STATUS.CANCELING;
  }

  /** setSucceeded / setAborted / setCanceled: only the first request counts [RTGH]. */
  requestEnd(kind: EndRequest["kind"], result: Record<string, unknown>): void {
    if (this.request || this.terminal) return;
    this.request = { kind, result };
  }

  /** RealtimeServerGoalHandle::runNonRealtime [RTGH]: succeed is suppressed while canceling. */
  runNonRealtime(): void {
    if (this.terminal) return;
    const r = this.request;
    if (r?.kind === "abort" && this.status === GOAL_STATUS.EXECUTING) this.finish(GOAL_STATUS.ABORTED, r.result);
    else if (r?.kind === "cancel" && this.active) this.finish(GOAL_STATUS.CANCELED, r.result);
    else if (r?.kind === "succeed" && this.status !== GOAL_STATUS.CANCELING) this.finish(GOAL_STATUS.SUCCEEDED, r.result);
    const fb = this.pendingFeedback;
    const cb = this.feedback;
    if (fb !== undefined && cb && this.status === GOAL_STATUS.EXECUTING) {
      this.pendingFeedback = undefined;
      this.server.respond(this.deliver, () => cb(fb));
    }
  }

  /** ~ServerGoalHandle [SGH]: a handle let go of while not terminal ends CANCELED with an empty result. */
  destroyHandle(): void {
    if (!this.terminal) this.finish(GOAL_STATUS.CANCELED, this.server.emptyResult());
  }

  finish(status: number, result: Record<string, unknown>): void {
    if (this.terminal) return;
    this.status = status;
    this.result = result;
    for (const w of this.resultWaiters.splice(0)) this.server.respond(w.deliver, () => w.pending.resolve({ status, result }));
    this.server.onTerminal(this);
  }
}

/** One simulated action server (a JTC or a gripper controller). */
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
    readonly world: SimWorld,
    readonly actionName: string,
    readonly typeClass: string,
  ) {}

  /** Schedules a response, unless the server is dead or cut off from our node: then it never comes. */
  respond(deliver: Deliver, fn: () => void): void {
    if (!this.alive || !this.world.reachable) return;
    deliver(() => {
      if (this.alive && this.world.reachable) fn();
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
    this.active = undefined;
    this.monitored = undefined;
    this.orphans.length = 0;
    this.stopForCancel();
  }

  abstract emptyResult(): Record<string, unknown>;
  abstract validate(goal: unknown): string | undefined;
  /** What the controller does with a new goal besides the goal-handle bookkeeping. */
  protected abstract start(goal: unknown, record: GoalRecord): void;
  /** The controller's cancel callback for its active goal. */
  protected abstract stopForCancel(): void;

  abstract tick(dtS: number): void;

  /** goal_accepted_callback: preempt, then the new goal's timer replaces the old one [JTC-40, JTC-41, GRIP]. */
  accept(goal: unknown, record: GoalRecord): void {
    const previous = this.active;
    if (previous) this.preempt(previous, record);
    const replaced = this.monitored;
    this.active = record;
    this.monitored = record;
    this.start(goal, record);
    // The old timer goes: a handle only it held (a goal left CANCELING by a cancel that came
    // after the success request) is destroyed now, and ends CANCELED.
    if (replaced && replaced !== previous && !replaced.terminal && !this.orphans.some((o) => o.record === replaced)) replaced.destroyHandle();
  }

  protected preempt(previous: GoalRecord, next: GoalRecord): void {
    switch (this.preemptionMode()) {
      case "abort_now":
        previous.requestEnd("abort", { error_code: FJT.INVALID_GOAL, error_string: JTC_TEXT.preempted });
        previous.runNonRealtime();
        return;
      case "delayed_cancel":
        previous.requestEnd("cancel", this.preemptResult());
        // Its timer is about to be replaced, so nothing sends that result; the handle lives on until `next` ends.
        this.orphans.push({ record: previous, until: next });
        return;
    }
  }

  protected preemptionMode(): PreemptionMode {
    return this.world.preemption;
  }

  protected preemptResult(): Record<string, unknown> {
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

export interface SimControllerOptions {
  readonly name: string;
  readonly actionName: string;
  readonly joints: readonly string[];
  readonly allowPartialJointsGoal?: boolean;
  readonly allowNonzeroVelocityAtTrajectoryEnd?: boolean;
  /** constraints.goal_time: used when a goal's goal_time_tolerance is 0; 0 = wait forever. */
  readonly defaultGoalTimeS?: number;
  /** constraints.<joint>.goal: used when a goal's tolerance is 0; 0 = not checked. */
  readonly defaultGoalTolerance?: number;
  /** constraints.stopped_velocity_tolerance: the default goal velocity tolerance (0.01) [TOL]. */
  readonly stoppedVelocityTolerance?: number;
  /**
   * Velocity state interface plus a velocity or effort command interface: only
   * then does JTC compute velocity errors, so only then is the goal velocity
   * tolerance checked (compute_error_for_joint, [JTC-41]).
   */
  readonly velocityErrors?: boolean;
}

interface TrajectoryPlan {
  readonly joints: readonly string[];
  readonly startPositions: readonly number[];
  /** Start velocities in trajectory time (physical / speed scaling). */
  readonly startVelocities: readonly number[];
  readonly points: ReadonlyArray<{ readonly t: number; readonly positions: readonly number[]; readonly velocities: readonly number[] }>;
  readonly goalTolerance: ReadonlyMap<string, { position: number; velocity: number }>;
  readonly goalTimeS: number;
}

/** A cubic Hermite segment: position and first/second derivatives at u ∈ [0, 1]. */
function hermite(p0: number, v0: number, p1: number, v1: number, T: number, u: number): { p: number; v: number; a: number } {
  const u2 = u * u;
  const u3 = u2 * u;
  const p = (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * T * v0 + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * T * v1;
  const dp = (6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * T * v0 + (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * T * v1;
  const ddp = (12 * u - 6) * p0 + (6 * u - 4) * T * v0 + (-12 * u + 6) * p1 + (6 * u - 2) * T * v1;
  return { p, v: dp / T, a: ddp / (T * T) };
}

function seconds(t: { sec: number; nanosec: number } | undefined): number {
  return t ? t.sec + t.nanosec / 1e9 : 0;
}

/**
 * joint_trajectory_controller. Trajectory time advances by `period ×
 * speed_scaling` on the ROS clock ([JTC-41] `traj_time_ +=`; Humble samples
 * at the node time, i.e. a factor of 1 [JTC-H]); the spline starts from the
 * current position *and velocity*; the goal is judged against position and
 * (with velocity errors) velocity tolerances at the last point; results and
 * feedback go out through the goal handle timer.
 */
export class SimTrajectoryController extends SimActionServer {
  plan: TrajectoryPlan | undefined;
  trajTimeS = 0;
  /** Controller lifecycle: inactive controllers reject goals ("Controller is not running."). */
  activeState = true;
  constructor(
    world: SimWorld,
    readonly options: SimControllerOptions,
  ) {
    super(world, options.actionName, TYPE_FJT);
  }

  emptyResult(): Record<string, unknown> {
    return { error_code: FJT.SUCCESSFUL, error_string: "" };
  }

  protected override preemptResult(): Record<string, unknown> {
    return { error_code: FJT.INVALID_GOAL, error_string: JTC_TEXT.preemptedBefore441 };
  }

  validate(goal: unknown): string | undefined {
    if (!this.activeState) return "Can't accept new action goals. Controller is not running.";
    const g = goal as { trajectory?: { joint_names?: string[]; points?: Array<{ positions?: ArrayLike<number>; velocities?: ArrayLike<number>; time_from_start?: { sec: number; nanosec: number } }> } };
    const names = g.trajectory?.joint_names ?? [];
    const points = g.trajectory?.points ?? [];
    if (names.length === 0 || points.length === 0) return "empty trajectory";
    for (const n of names) if (!this.options.joints.includes(n)) return `unknown joint ${n}`;
    if (new Set(names).size !== names.length) return "duplicate joint names";
    if (!this.options.allowPartialJointsGoal && names.length !== this.options.joints.length) return "partial joints goal";
    let lastT = -1;
    for (const p of points) {
      if ((p.positions?.length ?? 0) !== names.length) return "positions length mismatch";
      const vl = p.velocities?.length ?? 0;
      if (vl !== 0 && vl !== names.length) return "velocities length mismatch";
      const t = seconds(p.time_from_start);
      if (t <= lastT) return "time_from_start not increasing";
      lastT = t;
    }
    const last = points[points.length - 1];
    if (!this.options.allowNonzeroVelocityAtTrajectoryEnd && last?.velocities && Array.from(last.velocities).some((v) => v !== 0)) {
      return "velocity of last trajectory point is not zero";
    }
    return undefined;
  }

  protected start(goal: unknown, record: GoalRecord): void {
    const g = goal as {
      trajectory: { joint_names: string[]; points: Array<{ positions: ArrayLike<number>; velocities?: ArrayLike<number>; time_from_start: { sec: number; nanosec: number } }> };
      goal_tolerance?: Array<{ name: string; position: number; velocity?: number }>;
      goal_time_tolerance?: { sec: number; nanosec: number };
    };
    const joints = g.trajectory.joint_names;
    const defaults = { position: this.options.defaultGoalTolerance ?? 0, velocity: this.options.stoppedVelocityTolerance ?? 0.01 };
    const tolerance = new Map<string, { position: number; velocity: number }>();
    for (const j of joints) {
      const t = g.goal_tolerance?.find((x) => x.name === j);
      tolerance.set(j, { position: resolveTolerance(defaults.position, t?.position ?? 0), velocity: resolveTolerance(defaults.velocity, t?.velocity ?? 0) });
    }
    const gt = seconds(g.goal_time_tolerance);
    const scaling = this.world.speedScaling;
    const plan: TrajectoryPlan = {
      joints,
      startPositions: joints.map((j) => this.world.position(j)),
      startVelocities: joints.map((j) => this.world.velocity(j) / scaling),
      points: g.trajectory.points.map((p) => ({
        t: seconds(p.time_from_start),
        positions: Array.from(p.positions),
        velocities: p.velocities && p.velocities.length > 0 ? Array.from(p.velocities) : joints.map(() => 0),
      })),
      goalTolerance: tolerance,
      goalTimeS: gt > 0 ? gt : (this.options.defaultGoalTimeS ?? 0),
    };
    this.plan = plan;
    this.trajTimeS = 0;
    // A cubic's acceleration peaks at a segment end: what the arm is asked to do at once.
    const first = plan.points[0];
    if (first) {
      let peak = 0;
      plan.joints.forEach((_, i) => {
        const args = [plan.startPositions[i] ?? 0, plan.startVelocities[i] ?? 0, first.positions[i] ?? 0, first.velocities[i] ?? 0, first.t] as const;
        peak = Math.max(peak, Math.abs(hermite(...args, 0).a), Math.abs(hermite(...args, 1).a));
      });
      record.peakAcceleration = peak * scaling * scaling;
    }
  }

  protected stopForCancel(): void {
    this.hold();
  }

  hold(): void {
    this.plan = undefined;
    for (const j of this.options.joints) this.world.setVelocity(j, 0);
  }

  /** on_deactivate [JTC-41]: the active goal is aborted with INVALID_GOAL; the timer still sends it. */
  deactivate(): void {
    this.activeState = false;
    const active = this.active;
    if (active) active.requestEnd("abort", { error_code: FJT.INVALID_GOAL, error_string: JTC_TEXT.deactivated });
    this.active = undefined;
    this.hold();
  }

  activate(): void {
    this.activeState = true;
  }

  tick(dtS: number): void {
    const plan = this.plan;
    if (!plan) return;
    const scaling = this.world.speedScaling;
    this.trajTimeS += dtS * scaling;
    const elapsed = this.trajTimeS;
    const end = plan.points[plan.points.length - 1];
    if (!end) return;
    const desired: number[] = [];
    plan.joints.forEach((joint, i) => {
      let from = plan.startPositions[i] ?? 0;
      let fromV = plan.startVelocities[i] ?? 0;
      let t0 = 0;
      let p = from;
      let v = 0;
      for (const point of plan.points) {
        const to = point.positions[i] ?? from;
        const toV = point.velocities[i] ?? 0;
        if (elapsed < point.t) {
          const dur = point.t - t0;
          const s = hermite(from, fromV, to, toV, dur, Math.max(0, (elapsed - t0) / dur));
          p = s.p;
          v = s.v * scaling;
          break;
        }
        from = to;
        fromV = toV;
        t0 = point.t;
        p = to;
        v = 0;
      }
      desired.push(p);
      this.world.drive(joint, p, v);
    });
    const actual = plan.joints.map((j) => this.world.position(j));
    const active = this.active;
    if (active) {
      // setFeedback: runNonRealtime publishes the latest one while the goal executes.
      active.pendingFeedback = {
        joint_names: plan.joints,
        desired: { positions: Float64Array.from(desired), velocities: new Float64Array(0), accelerations: new Float64Array(0), effort: new Float64Array(0) },
        actual: { positions: Float64Array.from(actual), velocities: new Float64Array(0), accelerations: new Float64Array(0), effort: new Float64Array(0) },
        error: { positions: Float64Array.from(desired.map((d, i) => d - (actual[i] ?? 0))), velocities: new Float64Array(0), accelerations: new Float64Array(0), effort: new Float64Array(0) },
      };
    }
    if (elapsed < end.t || !active) return;
    const within = plan.joints.every((j, i) => {
      const tol = plan.goalTolerance.get(j) ?? { position: 0, velocity: 0 };
      const positionOk = tol.position === 0 || Math.abs(this.world.position(j) - (end.positions[i] ?? 0)) <= tol.position;
      // The desired velocity at the last point is 0: the error is the measured velocity [TOL check_state_tolerance_per_joint].
      const velocityOk = !this.options.velocityErrors || tol.velocity === 0 || Math.abs(this.world.measuredVelocity(j)) <= tol.velocity;
      return positionOk && velocityOk;
    });
    if (within) {
      active.requestEnd("succeed", { error_code: FJT.SUCCESSFUL, error_string: JTC_TEXT.succeeded });
      this.active = undefined;
    } else if (plan.goalTimeS > 0 && elapsed > end.t + plan.goalTimeS) {
      active.requestEnd("abort", { error_code: FJT.GOAL_TOLERANCE_VIOLATED, error_string: "Aborted due to goal_time_tolerance exceeding by ..." });
      this.active = undefined;
      this.hold();
    }
    // goal time 0: JTC keeps waiting for the tolerance, forever.
  }
}

/** resolve_tolerance_source [TOL]: > 0 replaces the default, 0 keeps it, -1 erases it. */
function resolveTolerance(defaultValue: number, goalValue: number): number {
  if (goalValue > 0) return goalValue;
  if (Math.abs(goalValue + 1) < 1e-9) return 0;
  return defaultValue;
}

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
}

/**
 * gripper_action_controller / parallel_gripper_controller: reached_goal when
 * within its own goal_tolerance, after which it keeps commanding the goal
 * position (the arm goes on moving); stall detection; no feedback; preemption
 * always `delayed_cancel` (preempt_active_goal calls setCanceled even on
 * Jazzy's current branch [GRIP]).
 */
export class SimGripperController extends SimActionServer {
  target: number | undefined;
  lastMoveMs = 0;
  constructor(
    world: SimWorld,
    readonly options: SimGripperOptions,
  ) {
    super(world, options.actionName, options.kind === "parallel_gripper" ? TYPE_PARALLEL : TYPE_GRIPPER);
  }

  protected override preemptionMode(): PreemptionMode {
    return "delayed_cancel";
  }

  emptyResult(): Record<string, unknown> {
    return this.options.kind === "parallel_gripper"
      ? { state: { name: [], position: new Float64Array(0), velocity: new Float64Array(0), effort: new Float64Array(0) }, stalled: false, reached_goal: false }
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

  protected start(goal: unknown): void {
    this.target = this.#targetOf(goal);
    this.lastMoveMs = this.world.now();
  }

  #result(reached: boolean, stalled: boolean): Record<string, unknown> {
    const position = this.world.position(this.options.joint);
    return this.options.kind === "parallel_gripper"
      ? { state: { name: [this.options.joint], position: Float64Array.of(position), velocity: new Float64Array(0), effort: Float64Array.of(0) }, stalled, reached_goal: reached }
      : { position, effort: 0, stalled, reached_goal: reached };
  }

  protected stopForCancel(): void {
    // The cancel callback commands the current position.
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
    const before = p;
    this.world.drive(joint, p + step, dtS > 0 ? step / dtS : 0);
    if (this.world.position(joint) !== before) this.lastMoveMs = nowMs;
    if (!active) return;
    if (Math.abs(this.world.position(joint) - target) < (this.options.goalTolerance ?? 0.01)) {
      active.requestEnd("succeed", this.#result(true, false));
      this.active = undefined;
    } else if (nowMs - this.lastMoveMs > (this.options.stallTimeoutS ?? 1.0) * 1000) {
      this.world.setVelocity(joint, 0);
      active.requestEnd("abort", this.#result(false, true));
      this.active = undefined;
      this.target = undefined;
    }
  }
}
