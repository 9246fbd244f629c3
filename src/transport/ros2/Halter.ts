import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import type { Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import type { ArmStatus, HaltResult } from "../Transport.js";
import type { ActionTracker } from "./ActionTracker.js";
import { awaitWithin } from "./awaitWithin.js";
import { buildTrajectoryGoal, type JointLimits } from "./buildTrajectoryGoal.js";
import type { GoalRun, GoalServer } from "./GoalRun.js";
import { buildGripperGoal } from "./gripperMapping.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import type { CancelGoalResponse } from "./rclTypes.js";
import type { Ros2Setup } from "./resolveRos2Setup.js";
import { serverKey, type ServerRegistry } from "./ServerRegistry.js";
import { stoppingPlan } from "./stoppingPlan.js";

/** action_msgs/srv/CancelGoal return codes that mean "nothing left to stop". */
const CANCEL_ERROR_NONE = 0;
const CANCEL_ERROR_GOAL_TERMINATED = 3;

export interface HalterDeps {
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly servers: ServerRegistry;
  readonly tracker: ActionTracker;
  readonly observer: JointStateObserver;
  readonly actuators: ReadonlyMap<string, Actuator>;
  readonly limits: ReadonlyMap<string, JointLimits>;
  readonly log: Logger;
  readonly now: () => number;
  readonly bounded: <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  /** Whether this controller ramps down on a cancel (constraints.decelerate_on_cancel, read at start); undefined: not known. */
  readonly decelerateOnCancel: (controller: string) => boolean | undefined;
  /** The controller's speed scaling now, when known (the hold goal's timing depends on it). */
  readonly speedScaling: (controller: string) => number | undefined;
  /** Whether a new goal starts from the running trajectory's planned state (allow_trajectory_replacement); undefined: not known. */
  readonly blendsNewGoals: (controller: string) => boolean | undefined;
}

/** The trajectory header frame of our hold goals: JTC ignores it; a bag or the double's record shows who braked. */
export const HALT_FRAME_ID = "armbridge/halt";

/**
 * Stops motion.
 *
 * A cancel is an abrupt stop on JTC: goal_cancelled_callback adds
 * set_hold_position(), the measured position with time_from_start 0
 * (joint_trajectory_controller.cpp, ros2_controllers 4.42.1), so the arm is
 * asked to stop within one control period — |v| / 2 ms on a UR, hundreds of
 * rad/s². Only with constraints.decelerate_on_cancel (Jazzy ≥ 4.39, off by
 * default) does it ramp down at max_deceleration_on_cancel. So a trajectory
 * motion — ours or another client's — is stopped with a hold goal aimed at
 * where the arm can stop under its configured max_acceleration
 * (stoppingPlan): it preempts the goal under way, and ours then ends
 * `stopped`. We cancel instead when told to (`halt_own_goals: cancel`), or,
 * with `auto`, when the controller's parameters show decelerate_on_cancel.
 * Gripper goals are cancelled (their controllers hold where they are).
 */
export class Halter {
  readonly #deps: HalterDeps;
  /** Halts per server (serverKey): a goal still waiting for its server when a halt came is never sent. */
  readonly #halts = new Map<string, number>();

  constructor(deps: HalterDeps) {
    this.#deps = deps;
  }

  /** How many halts have hit this server so far. */
  count(server: GoalServer): number {
    return this.#halts.get(serverKey(server)) ?? 0;
  }

  async halt(axes: readonly string[], signal: AbortSignal): Promise<HaltResult> {
    const { servers } = this.#deps;
    const targets = servers.serversFor(axes);
    for (const s of targets) this.#halts.set(serverKey(s), this.count(s) + 1);
    const affectedAxes = new Set<string>();
    for (const s of targets) for (const a of servers.axesOf(s)) affectedAxes.add(a);
    const failures = await this.#deps.bounded(
      [signal, AbortSignal.timeout(this.#deps.setup.options.cancelTimeoutMs)],
      async (wait) => {
        const requests: Promise<string | undefined>[] = [];
        for (const server of targets) {
          const ours = this.#deps.tracker.activeRuns(server);
          if (ours.length > 0 && this.#cancels(server)) {
            for (const run of ours) requests.push(this.#cancel(run, wait));
          } else if (ours.length > 0) {
            requests.push(this.#holdOver(ours, server, wait));
          } else if (servers.axesOf(server).some((a) => this.#deps.observer.latest()?.axes[a]?.moving)) {
            requests.push(this.#sendHold(server, wait));
          }
        }
        return (await Promise.all(requests)).filter((f): f is string => f !== undefined);
      },
    );
    const stopped = await this.#deps.bounded([signal], (wait) =>
      this.#deps.observer.waitFor(
        (s) => [...affectedAxes].every((a) => s.axes[a] !== undefined && !s.axes[a].moving),
        wait,
      ),
    );
    const status: ArmStatus | undefined = stopped ?? this.#deps.observer.latest();
    if (failures.length > 0) {
      return {
        halted: false,
        status,
        error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: "halt", reason: failures.join("; ") }),
      };
    }
    return { halted: stopped !== undefined, status };
  }

  /** Whether our goals on this server are stopped by a cancel rather than a decelerating hold goal. */
  #cancels(server: GoalServer): boolean {
    if (server.kind === "gripper") return true;
    switch (this.#deps.setup.options.haltOwnGoals) {
      case "cancel":
        return true;
      case "decelerate":
        return false;
      case "auto":
        return this.#deps.decelerateOnCancel(server.controller) === true;
    }
  }

  /** Preempts our own goals on a trajectory controller with a hold goal, once each has been answered. */
  async #holdOver(runs: readonly GoalRun[], server: GoalServer, signal: AbortSignal): Promise<string | undefined> {
    for (const run of runs) {
      if (!run.handle && run.phase === "sending") {
        // The goal may yet be accepted and move the arm: hold after it, or the hold would be preempted.
        const answered = await awaitWithin(run.responded, signal);
        if (answered.kind === "aborted")
          return `${run.actionName} had not answered our goal request when the halt stopped waiting; the goal may still start`;
      }
      if (run.phase === "lost") return `lost track of our goal on ${run.actionName}; it may still run`;
    }
    const live = runs.filter((r) => !r.terminal);
    if (live.length === 0) return undefined;
    const t = this.#deps.now();
    for (const run of live) run.haltedByUsMs ??= t;
    return this.#sendHold(server, signal);
  }

  async #cancel(run: GoalRun, signal: AbortSignal): Promise<string | undefined> {
    if (!run.handle && run.phase === "sending") {
      // Our goal request is still unanswered: the goal may yet be accepted and
      // move the arm, so wait for the answer and cancel what was accepted.
      const answered = await awaitWithin(run.responded, signal);
      if (answered.kind === "aborted")
        return `${run.actionName} had not answered our goal request when the halt stopped waiting; the goal may still start`;
    }
    if (run.phase === "lost") return `lost track of our goal on ${run.actionName}; it may still run`;
    const handle = run.handle;
    if (!handle || run.phase === "rejected") return undefined;
    let response: Promise<CancelGoalResponse>;
    try {
      response = handle.cancelGoal();
    } catch (error) {
      return `cancel on ${run.actionName} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const r = await awaitWithin(response, signal);
    if (r.kind === "aborted")
      return run.terminal ? undefined : `${run.actionName} did not answer the cancel request in time`;
    if (r.kind === "error")
      return `cancel on ${run.actionName} failed: ${r.error instanceof Error ? r.error.message : String(r.error)}`;
    const code = r.value.return_code;
    if (code === CANCEL_ERROR_NONE) run.cancelAcceptedMs ??= this.#deps.now();
    if (code === CANCEL_ERROR_NONE || code === CANCEL_ERROR_GOAL_TERMINATED || run.terminal) return undefined;
    return `${run.actionName} refused to cancel (return_code ${code})`;
  }

  async #sendHold(server: GoalServer, signal: AbortSignal): Promise<string | undefined> {
    const { servers, setup, config } = this.#deps;
    const status = this.#deps.observer.latest();
    const client = servers.clientOf(server);
    const name = servers.actionNameOf(server);
    if (!status || !client) return `no status to hold ${name} at`;
    let goal: object;
    const controller = servers.controllerOf(server);
    if (controller) {
      const joints = controller.joints.map((j) => this.#deps.actuators.get(j));
      if (joints.some((j) => j === undefined)) return `no limits for every joint of ${controller.name}`;
      const plan = stoppingPlan(
        joints as Actuator[],
        status.axes,
        (this.#deps.now() - status.stampMs) / 1000,
        setup.options.minMotionMs / 1000,
        this.#deps.speedScaling(controller.name),
        this.#deps.blendsNewGoals(controller.name) === true ? "planned" : "measured",
      );
      if (!plan) return `no position for every joint of ${controller.name}`;
      goal = buildTrajectoryGoal({
        frameId: HALT_FRAME_ID,
        joints: controller.joints,
        targets: plan.targets,
        current: plan.targets,
        limits: this.#deps.limits,
        speed: 1,
        positionTolerance: config.tolerances.position,
        velocityTolerance: setup.options.goalVelocityTolerance,
        goalTimeToleranceS: setup.options.goalTimeToleranceS,
        minMotionS: setup.options.minMotionMs / 1000,
        durationS: plan.durationS,
      }).goal;
    } else {
      const g = setup.gripper;
      const p = g ? status.axes[g.axis]?.position : undefined;
      if (!g || p === undefined) return "no gripper position to hold at";
      goal = buildGripperGoal(g, p);
    }
    this.#deps.log.warn(
      { server: name },
      "halting: preempting the goal under way with a hold goal at the stopping point",
    );
    let sent: Promise<{ isAccepted(): boolean }>;
    try {
      sent = client.sendGoal(goal);
    } catch (error) {
      return `hold goal on ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const r = await awaitWithin(sent, signal);
    if (r.kind === "value" && r.value.isAccepted()) return undefined;
    return `hold goal on ${name} was ${r.kind === "value" ? "rejected" : "not answered"}`;
  }
}
