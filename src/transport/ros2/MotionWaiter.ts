import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import { linkSignals } from "../linkSignals.js";
import type { MotionEnd } from "../Transport.js";
import type { ActionTrack, ActionTracker } from "./ActionTracker.js";
import { awaitWithin } from "./awaitWithin.js";
import type { GoalRun } from "./GoalRun.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import type { Ros2Options } from "./Ros2Options.js";
import type { OutcomeConfirmer } from "./OutcomeConfirmer.js";
import { serverKey, type ServerRegistry } from "./ServerRegistry.js";
import { refusal } from "./planMotion.js";

/** How often the wait for results looks at feedback, cancels and the node clock (ms). */
const POLL_MS = 50;

export interface MotionWaiterDeps {
  readonly options: Ros2Options;
  readonly config: ArmConfig;
  readonly servers: ServerRegistry;
  readonly tracker: ActionTracker;
  readonly observer: JointStateObserver;
  /** Local wall clock (ms). */
  readonly now: () => number;
  /** The node's clock (ms): sim time under use_sim_time. */
  readonly nodeNow: () => number;
  /** A signal that ends with any of `signals` or with close(). */
  readonly bounded: <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  readonly closing: AbortSignal;
  readonly confirmer: OutcomeConfirmer;
}

type Watch =
  | { readonly kind: "finished" }
  | { readonly kind: "aborted" }
  | { readonly kind: "timeout"; readonly operation: string; readonly ms: number };

/**
 * Waits for the outcome of a motion the way the controllers let us know it.
 *
 * - While JTC keeps sending feedback for our goal, the goal is running,
 *   however long it takes: JTC advances trajectory time by period × speed
 *   scaling on its node clock (joint_trajectory_controller.cpp `traj_time_ +=`,
 *   ros-controls/ros2_controllers jazzy @ ed360c97), so a speed slider or a
 *   Gazebo slower than real time stretches every motion.
 * - Without feedback (gripper controllers send none) the plan bounds the wait,
 *   counted on the node clock, so sim time stretches it too.
 * - Feedback whose stamps stop advancing without a result means the
 *   controller dropped the goal (realtime_tools republishes the last
 *   feedback on every tick while the goal is executing, so arriving feedback
 *   alone proves nothing); an accepted cancel with no result soon after means
 *   the same. The
 *   result may come much later (Humble / Jazzy < 4.41 preemption; a cancel that
 *   landed after the success request leaves the goal CANCELING until the next
 *   goal, realtime_server_goal_handle.hpp runNonRealtime, ros-controls/realtime_tools
 *   jazzy @ 0a483005): such a run is settled by observation.
 * - A gripper goal past its plan bound whose gripper /joint_states shows
 *   still and short of the target has met something the controller has not
 *   noticed: gripper_action_controller ends a goal on a stall only after
 *   |velocity| ≤ stall_velocity_threshold (0.001) for stall_timeout (1 s)
 *   (check_for_success, ros2_controllers 4.42.1), which a noisy velocity
 *   never satisfies. Closing, it holds an object (`grasped`); opening, it is
 *   `stalled`. Its goal stays active on the controller, pushing at
 *   max_effort, until the next gripper goal preempts it.
 * - Then OutcomeConfirmer checks what a result does not settle alone.
 */
export class MotionWaiter {
  readonly #deps: MotionWaiterDeps;
  /** Servers that have sent feedback for a goal of ours: silence from them means something. */
  readonly #feedbackServers = new Set<string>();

  constructor(deps: MotionWaiterDeps) {
    this.#deps = deps;
  }

  async awaitEnd(track: ActionTrack, signal: AbortSignal, log: Logger): Promise<MotionEnd> {
    const { options } = this.#deps;
    const responseMs = options.goalResponseTimeoutMs;
    const responded = await this.#deps.bounded([signal, AbortSignal.timeout(responseMs)], (s) =>
      awaitWithin(Promise.all(track.runs.map((r) => r.responded)), s),
    );
    if (responded.kind !== "value") return this.#waitEnd(signal, `sendGoal ${serverNames(track)}`, responseMs, log);
    const lostEarly = lostEnd(track);
    if (lostEarly) return lostEarly;
    if (track.runs.every((r) => r.phase === "rejected")) {
      log.warn("goal rejected");
      return refusal(
        track.actionId,
        track.runs.map((r) => r.outcome()?.detail ?? r.actionName).join("; "),
        "ARMB_ERR_ROS_GOAL",
      );
    }

    const watched = await this.#deps.bounded([signal], (s) => this.#watch(track, s, log));
    if (watched.kind !== "finished")
      return this.#waitEnd(
        signal,
        watched.kind === "timeout" ? watched.operation : "",
        watched.kind === "timeout" ? watched.ms : 0,
        log,
      );
    const lost = lostEnd(track);
    if (lost) return lost;
    await this.#deps.bounded([signal], (s) => this.#deps.confirmer.confirm(track, s));
    // An outcome not yet confirmed is no outcome to report: the caller's wait simply ended.
    if (signal.aborted) return this.#waitEnd(signal, "", 0, log);
    const record = this.#deps.tracker.recordOf(track);
    if (!record)
      return {
        kind: "link_error",
        error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: serverNames(track), reason: "outcome lost" }),
      };
    log.info({ state: record.state, detail: record.detail }, "goal ended");
    return { kind: "ended", record };
  }

  /** Why a bounded wait ended: our caller's signal, close(), or our own timeout on rclnodejs. */
  #waitEnd(signal: AbortSignal, operation: string, ms: number, log: Logger): MotionEnd {
    if (this.#deps.closing.aborted)
      return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: "ros2" }) };
    if (signal.aborted) return { kind: "wait_ended" };
    log.warn({ operation, ms }, "ROS did not answer in time; the goal is left running");
    return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", { operation, ms }) };
  }

  async #watch(track: ActionTrack, signal: AbortSignal, log: Logger): Promise<Watch> {
    const { options, now } = this.#deps;
    const finished = Promise.all(track.runs.map((r) => r.finished));
    const budgetMs = Math.ceil(track.planMs + options.goalTimeToleranceS * 1000 + options.resultMarginMs);
    const goneSince = new Map<GoalRun, number>();
    for (;;) {
      const tick = linkSignals([signal, AbortSignal.timeout(POLL_MS)]);
      let r;
      try {
        r = await awaitWithin(finished, tick.signal);
      } finally {
        tick.dispose();
      }
      if (r.kind === "value") return { kind: "finished" };
      if (signal.aborted) return { kind: "aborted" };
      for (const run of track.runs) {
        if (run.phase !== "accepted") continue;
        const t = now();
        // A server that left the graph sends nothing more: our goal is left running, outcome unknown.
        const available = this.#deps.servers.clientOf(run.server)?.isActionServerAvailable() ?? false;
        if (available) goneSince.delete(run);
        else if (!goneSince.has(run)) goneSince.set(run, t);
        const gone = goneSince.get(run);
        if (gone !== undefined && t - gone > options.feedbackIdleMs)
          return { kind: "timeout", operation: `getResult ${run.actionName} (server gone)`, ms: t - gone };
        if (run.lastFeedbackMs !== undefined) this.#feedbackServers.add(serverKey(run.server));
        // From a server known to send feedback, none at all since acceptance is silence too
        // (a goal preempted before its first feedback).
        const heard =
          run.lastFreshFeedbackMs ?? (this.#feedbackServers.has(serverKey(run.server)) ? run.acceptedMs : undefined);
        if (run.cancelAcceptedMs !== undefined && t - run.cancelAcceptedMs > options.settleMs) {
          if (!(await this.#settle(track, run, "a cancel was accepted but no result followed", signal, log)))
            return this.#aborted(signal);
        } else if (heard !== undefined && t - heard > options.feedbackIdleMs && available) {
          if (
            !(await this.#settle(
              track,
              run,
              "its feedback stopped: the controller no longer works for the goal (preempted by another goal, or switched off)",
              signal,
              log,
            ))
          )
            return this.#aborted(signal);
        } else if (heard === undefined && this.#deps.nodeNow() - track.sentAtNodeMs > budgetMs) {
          if (run.server.kind === "gripper") {
            const quiet = this.#quietGripper(track, run);
            if (quiet === "moving") continue;
            if (quiet === "settled") continue;
          }
          return { kind: "timeout", operation: `getResult ${serverNames(track)}`, ms: budgetMs };
        }
      }
    }
  }

  #aborted(signal: AbortSignal): Watch {
    return signal.aborted
      ? { kind: "aborted" }
      : { kind: "timeout", operation: "a fresh /joint_states sample to settle by", ms: this.#deps.options.settleMs };
  }

  /**
   * A run the controller no longer works for, with no result: judged on
   * samples received from now on. At its targets and still → reached; a
   * fresh sample showing anything else by the settle deadline → stopped (it
   * was dropped before getting there). No fresh sample at all → false: we
   * cannot tell, the caller reports a timeout.
   */
  async #settle(track: ActionTrack, run: GoalRun, reason: string, signal: AbortSignal, log: Logger): Promise<boolean> {
    const from = this.#deps.now();
    const axes = this.#deps.servers.axesOf(run.server).filter((a) => a in track.targets);
    const fresh = (s: { stampMs: number }) => s.stampMs >= from;
    const reached = await this.#deps.bounded([signal, AbortSignal.timeout(this.#deps.options.settleMs)], (wait) =>
      this.#deps.observer.waitFor((s) => fresh(s) && this.#deps.tracker.atTargetAndStill(track, axes, s), wait),
    );
    if (signal.aborted) return false;
    if (reached) {
      log.warn({ server: run.actionName, reason }, "no result; /joint_states shows the goal reached");
      run.presume({
        state: "reached",
        detail: `${run.actionName}: no result (${reason}); /joint_states: at target and still`,
      });
      return true;
    }
    const latest = this.#deps.observer.latest();
    if (!latest || !fresh(latest)) return false;
    log.warn({ server: run.actionName, reason }, "no result; /joint_states shows the goal did not get there");
    run.presume({ state: "stopped", detail: `${run.actionName}: no result (${reason}); /joint_states: not at target` });
    return true;
  }

  /**
   * A goal whose controller went away and came back (a restart forgets its
   * goals; no result will ever come): settled from /joint_states received
   * from now on. Once its axes read still — the controller holds where it
   * stopped, or the goal, if it survived, finished — at the target → reached,
   * elsewhere → stopped (cut short). Bounded by the goal's own time budget; a
   * goal still moving past it is left as it is (the executor's observation
   * then ends `unknown`). Nothing is sent.
   */
  async settleForgotten(track: ActionTrack, run: GoalRun, log: Logger): Promise<void> {
    const { options } = this.#deps;
    const from = this.#deps.now();
    const axes = this.#deps.servers.axesOf(run.server).filter((a) => a in track.targets);
    const budgetMs = Math.ceil(track.planMs + options.goalTimeToleranceS * 1000 + options.resultMarginMs);
    const still = await this.#deps.bounded([AbortSignal.timeout(budgetMs)], (wait) =>
      this.#deps.observer.waitFor(
        (s) => s.stampMs >= from && axes.every((a) => s.axes[a] !== undefined && !s.axes[a].moving),
        wait,
      ),
    );
    if (!still || run.terminal) return;
    const reached = this.#deps.tracker.atTargetAndStill(track, axes, still);
    log.warn(
      { server: run.actionName, reached },
      "its controller went away and came back without a result; settled from /joint_states",
    );
    run.presume(
      reached
        ? {
            state: "reached",
            detail: `${run.actionName}: the controller restarted without a result; /joint_states: at target and still`,
          }
        : {
            state: "stopped",
            detail: `${run.actionName}: the controller restarted without a result; /joint_states: still, not at target (cut short)`,
          },
    );
  }

  /**
   * A gripper goal with no result past its plan bound: still moving → keep
   * waiting (a slow gripper); at rest short of the target on a fresh sample →
   * settled by observation (see the class comment); no fresh sample → the
   * caller reports a timeout.
   */
  #quietGripper(track: ActionTrack, run: GoalRun): "moving" | "settled" | "unknown" {
    const axis = this.#deps.servers.axesOf(run.server)[0];
    const latest = this.#deps.observer.latest();
    const target = axis === undefined ? undefined : track.targets[axis];
    const s = axis === undefined ? undefined : latest?.axes[axis];
    if (!latest || !s || target === undefined || this.#deps.now() - latest.stampMs > this.#deps.config.staleAfterMs)
      return "unknown";
    if (s.moving) return "moving";
    const start = track.start[axis ?? ""] ?? s.position;
    const closing = target < start - this.#deps.config.tolerances.gripper;
    const why =
      "no result from the controller, whose stall check needs |velocity| ≤ stall_velocity_threshold for stall_timeout (a noisy velocity never does); /joint_states shows the gripper at rest";
    if (closing && s.position > target + this.#deps.config.tolerances.gripper) {
      run.presume({
        state: "grasped",
        detail: `closed on an object at ${s.position.toFixed(3)} of its opening and holds it; ${why}; the goal stays active, pressing on it`,
      });
    } else if (Math.abs(s.position - target) <= this.#deps.config.tolerances.gripper) {
      run.presume({ state: "reached", detail: `${run.actionName}: ${why}, at the target` });
    } else {
      run.presume({
        state: "stalled",
        detail: `${run.actionName}: ${why}, at ${s.position.toFixed(3)}, short of ${target.toFixed(3)}`,
      });
    }
    return "settled";
  }
}

function serverNames(track: ActionTrack): string {
  return track.runs.map((r) => r.actionName).join(", ");
}

function lostEnd(track: ActionTrack): MotionEnd | undefined {
  const run = track.runs.find((r) => r.phase === "lost");
  if (!run) return undefined;
  const reason = run.failure instanceof Error ? run.failure.message : String(run.failure);
  return {
    kind: "link_error",
    error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: run.actionName, reason }, { cause: run.failure }),
  };
}
