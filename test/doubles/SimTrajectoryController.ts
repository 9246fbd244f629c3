/**
 * joint_trajectory_controller (JTC), and UR's ScaledJointTrajectoryController,
 * as the double runs them. Sources read, with the commits:
 *
 *   [JTC-H]  ros-controls/ros2_controllers humble @ ad559d9c8054f128296ac094d7130e162e61b37a
 *            joint_trajectory_controller/src/joint_trajectory_controller.cpp
 *   [JTC-40] 4.40.1 @ 31015e0aa7ce9d0853a88d5fc2fe50f0e583ba5c (same file)
 *   [JTC-41] 4.41.0 @ b69445a5c72bc1b0dfc0658ce992748e65e94cf6 (same file)
 *   [JTC-42] 4.42.1 @ aacd842600a09d556b983ac3d53a0983e9ebcbb1 (same file; update(), goal_cancelled_callback,
 *            set_hold_position, decelerate_to_hold_position, and joint_trajectory_controller_parameters.yaml)
 *   [TOL]    jazzy @ ed360c97d6e9e74cb884e3e39a949d987cd15c11
 *            joint_trajectory_controller/include/joint_trajectory_controller/tolerances.hpp
 *   [UR]     UniversalRobots/Universal_Robots_ROS2_Driver jazzy @ a16a26876b35688e1f5c75f0de63f0c0c70e78f9
 *            ur_controllers/src/scaled_joint_trajectory_controller.cpp (update: the same loop, with
 *            `scaling_factor_` read from the hardware's speed_scaling/speed_scaling_factor state interface)
 *   [URM]    Universal_Robots_ROS2_Driver main @ 696e1a7b (ur_robot_driver 7.0.0; 6.0.0 on lyrical):
 *            ur_controllers.yaml no longer has scaled_joint_trajectory_controller; the stock
 *            joint_trajectory_controller is the launch default, with
 *            `speed_scaling.state_interface: speed_scaling/speed_scaling_factor`
 *   [JTC-42] also: update() reads scaling_factor_ from `speed_scaling.state_interface` when it is set
 *   versions: controllerVersions.ts
 *
 * What it reproduces:
 * - JTC's spline between the points, linear, cubic or quintic by which fields the points carry
 *   (jtcSpline.ts), the first segment from the measured positions and velocities;
 * - trajectory time advances by `period × scaling_factor_` ([JTC-42] `traj_time_ +=`), the scaling
 *   coming from the hardware on UR, from `~/speed_scaling_input` or
 *   `speed_scaling.initial_scaling_factor` on stock JTC ≥ 4.39 (position command interfaces only);
 * - a new trajectory starts from the measured position *and velocity*, the velocity taken as
 *   trajectory-time velocity (set_point_before_trajectory_msg with state_current_): under speed
 *   scaling s the commanded velocity steps from v to s·v; on Rolling ≥ 6.8 it blends from the
 *   running trajectory's planned state instead (#startState, controllerVersions.ts);
 * - path tolerance (constraints.<joint>.trajectory, or the goal's path_tolerance): checked while
 *   before the last point and on the first sample, as desired − measured; a violation aborts the goal
 *   with PATH_TOLERANCE_VIOLATED, "Aborted due to path tolerance violation", and holds;
 * - goal tolerance and goal time at the last point, velocity included with velocity errors [TOL];
 * - a cancel, a tolerance abort or an exceeded goal time holds at the measured position with
 *   time_from_start 0 (set_hold_position): the arm is stopped within one control period. With
 *   constraints.decelerate_on_cancel (≥ 4.39, off by default, needs max_deceleration_on_cancel > 0
 *   and a velocity state interface) it ramps down at max_deceleration_on_cancel instead — a ramp
 *   sampled in trajectory time, so speed scaling s slows it to s²·a;
 * - feedback (header stamp, desired with time_from_start, actual, error) set on every update while a
 *   goal is active (UR's Humble controller: the sampled point's time_from_start, #feedbackTimeFromStart); the goal handle timer republishes it (simGoalHandles.ts);
 * - deactivation per version: nothing, CANCELED or ABORTED, all with INVALID_GOAL and
 *   "Current goal cancelled during deactivate transition.".
 */
import { jtcTraits, type JtcTraits } from "./controllerVersions.js";
import { sampleJtcSegment, type SplineEnd, type SplineSample } from "./jtcSpline.js";
import type { GoalRecord } from "./simGoalHandles.js";
import { SimActionServer, type PreemptionMode } from "./simGoalHandles.js";
import { rosTime, type SimWorld } from "./simWorld.js";

export const FJT = {
  SUCCESSFUL: 0,
  INVALID_GOAL: -1,
  INVALID_JOINTS: -2,
  PATH_TOLERANCE_VIOLATED: -4,
  GOAL_TOLERANCE_VIOLATED: -5,
} as const;
export const TYPE_FJT = "control_msgs/action/FollowJointTrajectory";

/** Error strings JTC puts in results, verbatim from [JTC-40]/[JTC-41]/[JTC-42]. */
export const JTC_TEXT = {
  preemptedBefore441: "Current goal cancelled due to new incoming action.",
  preempted: "Current goal preempted by new incoming action.",
  deactivated: "Current goal cancelled during deactivate transition.",
  succeeded: "Goal successfully reached!",
  pathTolerance: "Aborted due to path tolerance violation",
} as const;

export interface SimControllerOptions {
  readonly name: string;
  readonly actionName: string;
  readonly joints: readonly string[];
  /** `ur_scaled`: ur_controllers/ScaledJointTrajectoryController (speed scaling from the hardware on every release). */
  readonly kind?: "jtc" | "ur_scaled" | "ur_passthrough";
  /** Stock JTC ≥ 4.39: `speed_scaling.state_interface`, the hardware's scaling read on every update (UR ≥ 6.0). */
  readonly speedScalingStateInterface?: string;
  /** The command interface; stock JTC scales speed only with `position`. */
  readonly commandInterface?: "position" | "velocity" | "effort";
  readonly allowPartialJointsGoal?: boolean;
  readonly allowNonzeroVelocityAtTrajectoryEnd?: boolean;
  /** constraints.goal_time: used when a goal's goal_time_tolerance is 0; 0 = wait forever. */
  readonly defaultGoalTimeS?: number;
  /** constraints.<joint>.goal: used when a goal's tolerance is 0; 0 = not checked. */
  readonly defaultGoalTolerance?: number;
  /** constraints.<joint>.trajectory: the path tolerance when a goal gives none; 0 = not checked. UR ships 0.2. */
  readonly pathTolerance?: number;
  /** constraints.stopped_velocity_tolerance: the default goal velocity tolerance (0.01) [TOL]. */
  readonly stoppedVelocityTolerance?: number;
  /**
   * Velocity state interface plus a velocity or effort command interface: only
   * then does JTC compute velocity errors, so only then is the goal velocity
   * tolerance checked (compute_error_for_joint, [JTC-41]).
   */
  readonly velocityErrors?: boolean;
  /** constraints.decelerate_on_cancel with every joint's max_deceleration_on_cancel (rad/s²); honoured from 4.39 on Jazzy. */
  readonly decelerateOnCancel?: { readonly maxDeceleration: number };
  /**
   * Jazzy and Kilted JTC can report SUCCEEDED before the trajectory's last
   * segment is reached (ros-controls/ros2_controllers #2419, fixed only on
   * master): the result goes out this many seconds of trajectory time before
   * the end while the controller keeps running the trajectory to its end.
   */
  readonly succeedsEarlyByS?: number;
}

interface TrajectoryPlan {
  readonly joints: readonly string[];
  readonly startPositions: readonly number[];
  /** Start velocities in trajectory time: the measured physical velocities, taken as they are. */
  readonly startVelocities: readonly number[];
  /** Velocities and accelerations as the goal gave them: an absent field changes JTC's spline (jtcSpline.ts). */
  readonly points: ReadonlyArray<{
    readonly t: number;
    readonly positions: readonly number[];
    readonly velocities: readonly number[] | undefined;
    readonly accelerations: readonly number[] | undefined;
  }>;
  readonly goalTolerance: ReadonlyMap<string, { position: number; velocity: number }>;
  readonly pathTolerance: ReadonlyMap<string, number>;
  readonly goalTimeS: number;
}

/** One joint ramping down at constant deceleration (decelerate_to_hold_position), in trajectory time. */
interface Ramp {
  readonly joint: string;
  readonly p0: number;
  readonly v0: number;
  readonly a: number;
}

/** One control cycle's command for a goal, in physical units (speed scaling applied). */
export interface CommandedSample {
  readonly goalId: number;
  readonly atMs: number;
  readonly positions: readonly number[];
  readonly velocities: readonly number[];
  readonly accelerations: readonly number[];
}

export type StopReason = "cancel" | "path_tolerance" | "goal_time" | "deactivate";

/** A stop the controller made, with the deceleration it asked of the arm: the double's ground truth of how hard it stopped. */
export interface StopRecord {
  readonly reason: StopReason;
  readonly mode: "hold" | "decelerate";
  /** Physical rad/s²: |v| / control period for a hold, s²·max_deceleration_on_cancel for a ramp. */
  readonly peakDeceleration: number;
  readonly atMs: number;
}

/** Joint i of a trajectory at trajectory time `elapsed` (s), in trajectory-time units. */
function sampleTrajectory(plan: TrajectoryPlan, i: number, elapsed: number): SplineSample {
  // The state before the trajectory: velocities from the velocity state interface, no accelerations.
  let from: SplineEnd = { p: plan.startPositions[i] ?? 0, v: plan.startVelocities[i] };
  let t0 = 0;
  let sample: SplineSample = { p: from.p, v: 0, a: 0 };
  for (const point of plan.points) {
    const to: SplineEnd = { p: point.positions[i] ?? from.p, v: point.velocities?.[i], a: point.accelerations?.[i] };
    if (elapsed < point.t) return sampleJtcSegment(from, to, point.t - t0, Math.max(0, elapsed - t0));
    from = to;
    t0 = point.t;
    sample = { p: to.p, v: 0, a: 0 };
  }
  return sample;
}

function seconds(t: { sec: number; nanosec: number } | undefined): number {
  return t ? t.sec + t.nanosec / 1e9 : 0;
}

/** resolve_tolerance_source [TOL]: > 0 replaces the default, 0 keeps it, -1 erases it. */
function resolveTolerance(defaultValue: number, goalValue: number): number {
  if (goalValue > 0) return goalValue;
  if (Math.abs(goalValue + 1) < 1e-9) return 0;
  return defaultValue;
}

type FjtGoal = {
  trajectory: {
    joint_names: string[];
    points: Array<{
      positions: ArrayLike<number>;
      velocities?: ArrayLike<number>;
      accelerations?: ArrayLike<number>;
      time_from_start: { sec: number; nanosec: number };
    }>;
  };
  path_tolerance?: Array<{ name: string; position: number }>;
  goal_tolerance?: Array<{ name: string; position: number; velocity?: number }>;
  goal_time_tolerance?: { sec: number; nanosec: number };
};

export class SimTrajectoryController extends SimActionServer {
  plan: TrajectoryPlan | undefined;
  trajTimeS = 0;
  /** Controller lifecycle: inactive controllers reject goals ("Controller is not running."). */
  activeState = true;
  readonly traits: JtcTraits;
  /** Stock JTC's scaling_factor_ (≥ 4.39): speed_scaling.initial_scaling_factor, then ~/speed_scaling_input. */
  scalingFactor: number;
  /** Each joint's distance from the end when an early SUCCEEDED went out (succeedsEarlyByS). */
  succeededShortOf: number[] | undefined;
  readonly stops: StopRecord[] = [];
  /** Every control cycle's command while a goal runs: the double's record of how fast the arm was told to move. */
  readonly commanded: CommandedSample[] = [];
  /** desired.time_from_start (s) of every feedback the control loop set: the double's record of what the pace was read from. */
  readonly feedbackTimesFromStart: number[] = [];
  #ramps: Ramp[] | undefined;
  #rampTimeS = 0;
  #firstSample = false;

  constructor(
    readonly world: SimWorld,
    readonly options: SimControllerOptions,
    readonly monitorPeriodMs: number,
  ) {
    super(options.actionName, TYPE_FJT);
    this.traits = jtcTraits(world.distro, world.ros2ControllersVersion);
    this.scalingFactor = world.speedScaling;
  }

  /** The factor trajectory time advances by now. */
  scaling(): number {
    if (this.options.kind === "ur_scaled") return this.world.speedScaling;
    if (this.traits.stockSpeedScaling && this.options.speedScalingStateInterface) return this.world.speedScaling;
    if (this.traits.stockSpeedScaling && (this.options.commandInterface ?? "position") === "position")
      return this.scalingFactor;
    return 1;
  }

  /** The controller node's parameters, as `ros2 param dump` would list them. */
  parameters(): Record<string, unknown> {
    const o = this.options;
    // ur_controllers/src/passthrough_trajectory_controller_parameters.yaml (main @ 696e1a7b): these four only.
    if (o.kind === "ur_passthrough")
      return {
        speed_scaling_interface_name: "speed_scaling/speed_scaling_factor",
        tf_prefix: "",
        joints: [...o.joints],
        state_interfaces: ["position", "velocity"],
      };
    const p: Record<string, unknown> = {
      joints: [...o.joints],
      command_interfaces: [o.commandInterface ?? "position"],
      state_interfaces: ["position", "velocity"],
      action_monitor_rate: 1000 / this.monitorPeriodMs,
      allow_partial_joints_goal: o.allowPartialJointsGoal ?? false,
      "constraints.stopped_velocity_tolerance": o.stoppedVelocityTolerance ?? 0.01,
      "constraints.goal_time": o.defaultGoalTimeS ?? 0,
    };
    for (const j of o.joints) {
      p[`constraints.${j}.trajectory`] = o.pathTolerance ?? 0;
      p[`constraints.${j}.goal`] = o.defaultGoalTolerance ?? 0;
    }
    if (this.traits.stockSpeedScaling) {
      p["speed_scaling.initial_scaling_factor"] = this.world.speedScaling;
      p["speed_scaling.state_interface"] = o.speedScalingStateInterface ?? "";
      p["speed_scaling.command_interface"] = "";
      if (this.traits.trajectoryReplacement === "blend") p.allow_trajectory_replacement = true;
      p["constraints.decelerate_on_cancel"] = o.decelerateOnCancel !== undefined;
      for (const j of o.joints)
        p[`constraints.${j}.max_deceleration_on_cancel`] = o.decelerateOnCancel?.maxDeceleration ?? 0;
    }
    if (o.kind === "ur_scaled") p.speed_scaling_interface_name = "speed_scaling/speed_scaling_factor";
    return p;
  }

  protected preemptionMode(): PreemptionMode {
    return this.traits.preemption;
  }

  emptyResult(): Record<string, unknown> {
    return { error_code: FJT.SUCCESSFUL, error_string: "" };
  }

  protected override preemptResult(): Record<string, unknown> {
    return { error_code: FJT.INVALID_GOAL, error_string: JTC_TEXT.preemptedBefore441 };
  }

  protected override abortPreemptResult(): Record<string, unknown> {
    return { error_code: FJT.INVALID_GOAL, error_string: JTC_TEXT.preempted };
  }

  validate(goal: unknown): string | undefined {
    if (!this.activeState) return "Can't accept new action goals. Controller is not running.";
    const g = goal as {
      trajectory?: {
        joint_names?: string[];
        points?: Array<{
          positions?: ArrayLike<number>;
          velocities?: ArrayLike<number>;
          time_from_start?: { sec: number; nanosec: number };
        }>;
      };
    };
    const names = g.trajectory?.joint_names ?? [];
    const points = g.trajectory?.points ?? [];
    if (names.length === 0 || points.length === 0) return "empty trajectory";
    for (const n of names) if (!this.options.joints.includes(n)) return `unknown joint ${n}`;
    if (new Set(names).size !== names.length) return "duplicate joint names";
    if (!this.options.allowPartialJointsGoal && names.length !== this.options.joints.length)
      return "partial joints goal";
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
    if (
      !this.options.allowNonzeroVelocityAtTrajectoryEnd &&
      last?.velocities &&
      Array.from(last.velocities).some((v) => v !== 0)
    ) {
      return "velocity of last trajectory point is not zero";
    }
    return undefined;
  }

  protected start(goal: unknown, record: GoalRecord): void {
    const g = goal as FjtGoal;
    const joints = g.trajectory.joint_names;
    const fromGoal = this.traits.goalTolerancesFromGoal;
    const defaults = {
      position: this.options.defaultGoalTolerance ?? 0,
      velocity: this.options.stoppedVelocityTolerance ?? 0.01,
    };
    const tolerance = new Map<string, { position: number; velocity: number }>();
    const path = new Map<string, number>();
    for (const j of joints) {
      const t = fromGoal ? g.goal_tolerance?.find((x) => x.name === j) : undefined;
      tolerance.set(j, {
        position: resolveTolerance(defaults.position, t?.position ?? 0),
        velocity: resolveTolerance(defaults.velocity, t?.velocity ?? 0),
      });
      const pt = fromGoal ? g.path_tolerance?.find((x) => x.name === j) : undefined;
      path.set(j, resolveTolerance(this.options.pathTolerance ?? 0, pt?.position ?? 0));
    }
    const gt = fromGoal ? seconds(g.goal_time_tolerance) : 0;
    const scaling = this.scaling();
    // The measured velocity becomes the spline's start velocity in trajectory time, unscaled;
    // on a blending controller the running trajectory's planned state does (#startState).
    const { positions: startPositions, velocities: measured } = this.#startState(joints);
    const plan: TrajectoryPlan = {
      joints,
      startPositions,
      startVelocities: measured,
      points: g.trajectory.points.map((p) => ({
        t: seconds(p.time_from_start),
        positions: Array.from(p.positions),
        velocities: p.velocities && p.velocities.length > 0 ? Array.from(p.velocities) : undefined,
        accelerations: p.accelerations && p.accelerations.length > 0 ? Array.from(p.accelerations) : undefined,
      })),
      goalTolerance: tolerance,
      pathTolerance: path,
      goalTimeS: gt > 0 ? gt : (this.options.defaultGoalTimeS ?? 0),
    };
    this.plan = plan;
    this.#ramps = undefined;
    this.trajTimeS = 0;
    this.#firstSample = true;
    record.startVelocityStep = Math.max(
      0,
      ...joints.map((j, i) => Math.abs(this.world.velocity(j) - scaling * (measured[i] ?? 0))),
    );
    // A cubic's acceleration peaks at a segment end: what the arm is asked to do at once.
    const first = plan.points[0];
    if (first) {
      let peak = 0;
      plan.joints.forEach((_, i) => {
        const from = { p: plan.startPositions[i] ?? 0, v: plan.startVelocities[i] };
        const to = { p: first.positions[i] ?? 0, v: first.velocities?.[i], a: first.accelerations?.[i] };
        for (const u of [0, first.t]) peak = Math.max(peak, Math.abs(sampleJtcSegment(from, to, first.t, u).a));
      });
      record.peakAcceleration = peak * scaling * scaling;
    }
  }

  /**
   * Where a new trajectory starts. Replacing (Humble, Jazzy, Rolling before
   * 6.8): the measured position and velocity (set_point_before_trajectory_msg
   * with state_current_). Blending (Rolling ≥ 6.8, allow_trajectory_replacement
   * true by default): blend_with_active_trajectory samples the running
   * trajectory at the current trajectory time (traj_time_) into `blend_bridge_`
   * and puts it first, at time 0 — the new spline leaves from the *planned*
   * position and trajectory-time velocity (master @ 94e74de3,
   * joint_trajectory_controller.cpp). Not while holding (`!rt_is_holding_`):
   * after a cancel or abort the measured state is used again.
   */
  #startState(joints: readonly string[]): { positions: number[]; velocities: number[] } {
    const old = this.plan;
    const blend = this.traits.trajectoryReplacement === "blend" && old !== undefined && this.#ramps === undefined;
    const positions: number[] = [];
    const velocities: number[] = [];
    for (const j of joints) {
      const i = blend ? old.joints.indexOf(j) : -1;
      const bridge = blend && i >= 0 ? sampleTrajectory(old, i, this.trajTimeS) : undefined;
      positions.push(bridge?.p ?? this.world.position(j));
      velocities.push(bridge?.v ?? this.world.measuredVelocity(j));
    }
    return { positions, velocities };
  }

  /**
   * desired.time_from_start in the feedback. JTC (Jazzy, Rolling) and stock
   * Humble JTC put the trajectory time there (`traj_time_ - time_from_start()`;
   * humble @ ad559d9c, `time - traj start`). UR's Humble
   * ScaledJointTrajectoryController (Universal_Robots_ROS2_Driver humble @
   * eca2357c, scaled_joint_trajectory_controller.cpp) sends `state_desired_ =
   * last_commanded_state_`, a point from Trajectory::sample (ros2_controllers
   * humble, trajectory.cpp), whose time_from_start is left 0 before the first
   * point, is the *next* point's between points, and the last point's after:
   * a one-point goal reads 0 until it ends, a staircase otherwise.
   */
  #feedbackTimeFromStart(plan: TrajectoryPlan, elapsed: number): number {
    let t = elapsed;
    if (this.options.kind === "ur_scaled" && this.world.distro === "humble") {
      const next = plan.points.find((p, i) => i > 0 && elapsed < p.t && elapsed >= (plan.points[i - 1]?.t ?? 0));
      const first = plan.points[0]?.t ?? 0;
      t = elapsed < first ? 0 : (next?.t ?? plan.points[plan.points.length - 1]?.t ?? 0);
    }
    this.feedbackTimesFromStart.push(t);
    return t;
  }

  protected stopForCancel(): void {
    this.stop("cancel");
  }

  /**
   * set_hold_position, or decelerate_to_hold_position when the controller is
   * configured for it: what JTC does on a cancel, a tolerance abort and an
   * exceeded goal time.
   */
  stop(reason: StopReason): void {
    this.plan = undefined;
    const decel = this.options.decelerateOnCancel;
    if (decel && this.traits.decelerateOnCancel && decel.maxDeceleration > 0 && reason !== "deactivate") {
      this.#ramps = this.options.joints.map((j) => ({
        joint: j,
        p0: this.world.position(j),
        v0: this.world.measuredVelocity(j),
        a: decel.maxDeceleration,
      }));
      this.#rampTimeS = 0;
      const s = this.scaling();
      this.stops.push({
        reason,
        mode: "decelerate",
        peakDeceleration: s * s * decel.maxDeceleration,
        atMs: this.world.now(),
      });
      return;
    }
    this.hold(reason);
  }

  /** A dying controller_manager decelerates nothing: the hardware interface holds at once. */
  protected override holdForCrash(): void {
    this.hold();
  }

  /** set_hold_position: the measured position with time_from_start 0, reached within one control period. */
  hold(reason?: StopReason): void {
    this.plan = undefined;
    this.#ramps = undefined;
    let peak = 0;
    for (const j of this.options.joints) {
      peak = Math.max(peak, Math.abs(this.world.velocity(j)) / this.world.controlPeriodS);
      this.world.setVelocity(j, 0);
    }
    if (reason) this.stops.push({ reason, mode: "hold", peakDeceleration: peak, atMs: this.world.now() });
  }

  /** on_deactivate, per version: the active goal is aborted, cancelled, or left as it is; the joints hold. */
  deactivate(): void {
    this.activeState = false;
    const active = this.active;
    const result = { error_code: FJT.INVALID_GOAL, error_string: JTC_TEXT.deactivated };
    if (active) {
      switch (this.traits.deactivation) {
        case "abort":
          active.requestEnd("abort", result);
          this.active = undefined;
          break;
        case "cancel":
          active.requestEnd("cancel", result);
          this.active = undefined;
          break;
        case "none":
          // The goal stays executing; the control loop no longer runs, so its feedback freezes.
          break;
      }
    }
    this.hold("deactivate");
  }

  activate(): void {
    this.activeState = true;
  }

  tick(dtS: number): void {
    if (!this.activeState) return;
    if (this.#ramps) {
      this.#tickRamps(dtS);
      return;
    }
    const plan = this.plan;
    if (!plan) return;
    const scaling = this.scaling();
    const first = this.#firstSample;
    this.#firstSample = false;
    if (!first) this.trajTimeS += dtS * scaling;
    const elapsed = this.trajTimeS;
    const end = plan.points[plan.points.length - 1];
    if (!end) return;
    const beforeLast = elapsed < end.t;
    const desired: number[] = [];
    const desiredV: number[] = [];
    const desiredA: number[] = [];
    plan.joints.forEach((_, i) => {
      const sample = sampleTrajectory(plan, i, elapsed);
      desired.push(sample.p);
      desiredV.push(sample.v * scaling);
      desiredA.push(sample.a * scaling * scaling);
    });
    if (this.active)
      this.commanded.push({
        goalId: this.active.id,
        atMs: this.world.now(),
        velocities: desiredV,
        accelerations: desiredA,
        positions: desired,
      });
    // The state is read before this cycle's command is written: the error is desired − measured.
    const actual = plan.joints.map((j) => this.world.position(j));
    const error = desired.map((d, i) => d - (actual[i] ?? 0));
    const pathViolated =
      (beforeLast || first) &&
      plan.joints.some((j, i) => {
        const tol = plan.pathTolerance.get(j) ?? 0;
        return tol > 0 && Math.abs(error[i] ?? 0) > tol;
      });
    if (!pathViolated) plan.joints.forEach((joint, i) => this.world.drive(joint, desired[i] ?? 0, desiredV[i] ?? 0));
    const active = this.active;
    if (active) {
      // setFeedback: the goal handle timer publishes the latest one while the goal executes.
      active.feedbackMessage = {
        header: { stamp: rosTime(this.world.now()), frame_id: "" },
        joint_names: plan.joints,
        desired: {
          positions: Float64Array.from(desired),
          velocities: Float64Array.from(desiredV),
          accelerations: new Float64Array(0),
          effort: new Float64Array(0),
          time_from_start: rosTime(this.#feedbackTimeFromStart(plan, elapsed) * 1000),
        },
        actual: {
          positions: Float64Array.from(actual),
          velocities: Float64Array.from(plan.joints.map((j) => this.world.measuredVelocity(j))),
          accelerations: new Float64Array(0),
          effort: new Float64Array(0),
          time_from_start: rosTime(0),
        },
        error: {
          positions: Float64Array.from(error),
          velocities: new Float64Array(0),
          accelerations: new Float64Array(0),
          effort: new Float64Array(0),
          time_from_start: rosTime(0),
        },
      };
    }
    if (pathViolated) {
      if (active) {
        active.requestEnd("abort", { error_code: FJT.PATH_TOLERANCE_VIOLATED, error_string: JTC_TEXT.pathTolerance });
        this.active = undefined;
      }
      this.stop("path_tolerance");
      return;
    }
    const early = this.options.succeedsEarlyByS;
    if (active && beforeLast && early !== undefined && elapsed >= end.t - early) {
      active.requestEnd("succeed", { error_code: FJT.SUCCESSFUL, error_string: JTC_TEXT.succeeded });
      this.active = undefined;
      this.succeededShortOf = plan.joints.map((j, i) => Math.abs((end.positions[i] ?? 0) - this.world.position(j)));
      return;
    }
    if (beforeLast || !active) return;
    const within = plan.joints.every((j, i) => {
      const tol = plan.goalTolerance.get(j) ?? { position: 0, velocity: 0 };
      const positionOk =
        tol.position === 0 || Math.abs(this.world.position(j) - (end.positions[i] ?? 0)) <= tol.position;
      // The desired velocity at the last point is 0: the error is the measured velocity [TOL check_state_tolerance_per_joint].
      const velocityOk =
        !this.options.velocityErrors || tol.velocity === 0 || Math.abs(this.world.measuredVelocity(j)) <= tol.velocity;
      return positionOk && velocityOk;
    });
    if (within) {
      active.requestEnd("succeed", { error_code: FJT.SUCCESSFUL, error_string: JTC_TEXT.succeeded });
      this.active = undefined;
    } else if (plan.goalTimeS > 0 && elapsed > end.t + plan.goalTimeS) {
      active.requestEnd("abort", {
        error_code: FJT.GOAL_TOLERANCE_VIOLATED,
        error_string: `Aborted due to goal_time_tolerance exceeding by ${(elapsed - end.t).toFixed(6)} seconds`,
      });
      this.active = undefined;
      this.stop("goal_time");
    }
    // goal time 0: JTC keeps waiting for the tolerance, forever.
  }

  #tickRamps(dtS: number): void {
    const ramps = this.#ramps ?? [];
    const s = this.scaling();
    this.#rampTimeS += dtS * s;
    const t = this.#rampTimeS;
    let moving = false;
    for (const r of ramps) {
      const dir = r.v0 >= 0 ? 1 : -1;
      const tStop = Math.abs(r.v0) / r.a;
      const tt = Math.min(t, tStop);
      const p = r.p0 + r.v0 * tt - 0.5 * dir * r.a * tt * tt;
      const v = t < tStop ? (r.v0 - dir * r.a * t) * s : 0;
      if (t < tStop) moving = true;
      this.world.drive(r.joint, p, v);
    }
    if (!moving) this.#ramps = undefined;
  }
}
