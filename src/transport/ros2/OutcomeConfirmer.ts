import type { ArmConfig } from "../../config/ArmConfig.js";
import { deviceText } from "../../validation/deviceText.js";
import type { ActionTrack, ActionTracker } from "./ActionTracker.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import type { Ros2Options } from "./Ros2Options.js";
import { FRANKA_HOMING_ADVICE, type FrankaHandHoming } from "./FrankaHandHoming.js";
import type { RosoutWatcher } from "./RosoutWatcher.js";
import type { ServerRegistry } from "./ServerRegistry.js";

export interface OutcomeConfirmerDeps {
  readonly options: Ros2Options;
  readonly config: ArmConfig;
  readonly servers: ServerRegistry;
  readonly tracker: ActionTracker;
  readonly observer: JointStateObserver;
  readonly now: () => number;
  readonly bounded: <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  /** Whether JTC reads our goals' tolerances (RosFacts.goalTolerancesHonoured); undefined: not known. */
  readonly goalTolerancesHonoured: () => boolean | undefined;
  /** The gripper node's /rosout errors, when its failures are reported only there (franka_gripper). */
  readonly rosout: () => RosoutWatcher | undefined;
  /** Latched when franka_gripper's log shows the Hand is not homed. */
  readonly hand?: FrankaHandHoming;
}

/**
 * What a controller's result does not settle alone, checked before a
 * motion's outcome is reported:
 *
 * - a gripper's "reached" within the controller's own goal_tolerance (0.01
 *   in controller units: a quarter of a 0.04 m stroke) → confirmed against
 *   tolerances.gripper on /joint_states;
 * - a JTC "reached" from a controller that may not read our goal tolerances
 *   (before 2.37.0 / 4.11.0 its constraints apply, goal tolerance 0 =
 *   unchecked) → confirmed against tolerances.position the same way;
 * - a franka_gripper failure, whose reason only its /rosout carries → the
 *   logged error becomes the cause;
 * - any end short of the target (a path tolerance abort, a stop, a stall) →
 *   the pose is observed at rest after the end, so the record's `moved` and
 *   the settled pose are what the arm did, not a sample from mid-brake.
 */
export class OutcomeConfirmer {
  readonly #deps: OutcomeConfirmerDeps;

  constructor(deps: OutcomeConfirmerDeps) {
    this.#deps = deps;
  }

  async confirm(track: ActionTrack, signal: AbortSignal): Promise<void> {
    await this.#confirmReached(track, signal);
    if (signal.aborted) return;
    await this.#explainFromRosout(track, signal);
    if (signal.aborted) return;
    await this.#awaitRestAfterEnd(track, signal);
  }

  async #confirmReached(track: ActionTrack, signal: AbortSignal): Promise<void> {
    const { options } = this.#deps;
    const honoured = this.#deps.goalTolerancesHonoured();
    const toConfirm = track.runs.filter(
      (r) =>
        r.phase === "ended" && r.outcome()?.state === "reached" && (r.server.kind === "gripper" || honoured !== true),
    );
    const endedAt = track.endedAtMs;
    if (toConfirm.length === 0 || endedAt === undefined) return;
    for (const run of toConfirm) {
      const axes = this.#deps.servers.axesOf(run.server).filter((a) => a in track.targets);
      // AbortSignal.timeout takes whole milliseconds only.
      const ms = Math.ceil(
        (run.server.kind === "gripper" ? track.planMs : 0) + options.goalTimeToleranceS * 1000 + options.settleMs,
      );
      const confirmed = await this.#deps.bounded([signal, AbortSignal.timeout(ms)], (wait) =>
        this.#deps.observer.waitFor(
          (s) => s.stampMs >= endedAt && this.#deps.tracker.atTargetAndStill(track, axes, s),
          wait,
        ),
      );
      if (confirmed || signal.aborted) continue;
      const latest = this.#deps.observer.latest();
      const where = axes
        .map(
          (a) => `${a} ${latest?.axes[a]?.position.toFixed(3) ?? "?"} (target ${track.targets[a]?.toFixed(3) ?? "?"})`,
        )
        .join(", ");
      const tolerance =
        run.server.kind === "gripper"
          ? `tolerances.gripper ${this.#deps.config.tolerances.gripper}`
          : `tolerances.position ${this.#deps.config.tolerances.position} (this JTC may ignore goal tolerances)`;
      run.amend({
        state: "stalled",
        detail: `${run.outcome()?.detail ?? run.actionName}; but /joint_states shows ${where}: not within ${tolerance} and still`,
      });
      this.#deps.tracker.refreeze(track);
    }
  }

  async #explainFromRosout(track: ActionTrack, signal: AbortSignal): Promise<void> {
    const watcher = this.#deps.rosout();
    if (!watcher) return;
    for (const run of track.runs) {
      const o = run.outcome();
      if (!o?.causeOnRosout || run.sentAtMs === undefined) continue;
      // The log and the result travel on different topics: give the log a moment to catch up.
      const errors = await this.#deps.bounded(
        [signal, AbortSignal.timeout(Math.ceil(Math.min(500, this.#deps.options.settleMs)))],
        (wait) => watcher.waitForError(run.sentAtMs ?? 0, wait),
      );
      if (errors.length === 0) {
        if (o.state === "faulted") run.amend({ state: o.state, detail: `${o.detail}; its node logged no error` });
        continue;
      }
      // What a node logged is its text, not ours: quoted and bounded as device text.
      const cause = errors.map((e) => deviceText(`${e.node} on /rosout`, e.msg)).join("; ");
      const axis = this.#deps.servers.axesOf(run.server)[0] ?? "";
      const notHomed = this.#deps.hand?.noteErrors(errors, this.#deps.observer.latest()?.axes[axis]?.position) ?? false;
      run.amend({
        state: "faulted",
        detail: `${run.actionName}: ${notHomed ? `${FRANKA_HOMING_ADVICE}; ` : ""}the command failed (status ${run.status ?? "?"}, reached_goal false); ${errors[0]?.node ?? "its node"} logged: ${cause}`,
      });
      this.#deps.tracker.refreeze(track);
    }
  }

  /**
   * After an end short of the target: waits (up to settle_ms) for a sample
   * received after the end that shows the run's axes at rest, else (briefly:
   * /joint_states is a fast stream) for any sample after the end. Without one
   * the record says `moved: undefined`, never a guess.
   */
  async #awaitRestAfterEnd(track: ActionTrack, signal: AbortSignal): Promise<void> {
    const endedAt = track.endedAtMs;
    const final = track.final;
    if (endedAt === undefined || !final || final.state === "reached" || final.state === "rejected") return;
    const axes = track.axes;
    const atRest = await this.#deps.bounded(
      [signal, AbortSignal.timeout(Math.ceil(this.#deps.options.settleMs))],
      (wait) =>
        this.#deps.observer.waitFor(
          (s) => s.stampMs >= endedAt && axes.every((a) => s.axes[a] !== undefined && !s.axes[a].moving),
          wait,
        ),
    );
    if (atRest || signal.aborted || final.moved !== undefined) return;
    await this.#deps.bounded([signal, AbortSignal.timeout(Math.ceil(this.#deps.config.staleAfterMs))], (wait) =>
      this.#deps.observer.waitFor((s) => s.stampMs >= endedAt, wait),
    );
  }
}
