import type { Actuator } from "../../config/actuators.js";
import type { ActionRecord, ArmActionState } from "../Transport.js";
import type { GoalRun, GoalServer } from "./GoalRun.js";
import type { JointSample } from "./JointStateObserver.js";
import { sameServer } from "./ServerRegistry.js";

/** Finished actions kept for queryAction; the ledger is the durable record. */
const MAX_TRACKED_ACTIONS = 256;
/** Recent actions included in each ArmStatus. */
const STATUS_ACTIONS = 16;

/** One motion: its goals (one per server) and what it set out to do. */
export interface ActionTrack {
  readonly actionId: string;
  readonly axes: readonly string[];
  readonly start: Readonly<Record<string, number>>;
  /** The commanded targets (armbridge units: rad, gripper 0..1). */
  readonly targets: Readonly<Record<string, number>>;
  readonly runs: readonly GoalRun[];
  /** Longest planned motion (ms of trajectory time). */
  readonly planMs: number;
  /** The node clock (ms; sim time under use_sim_time) when the goals were sent. */
  readonly sentAtNodeMs: number;
  /**
   * Frozen when every run is terminal, so later motions cannot change what
   * this one did; its `moved` is settled by the first sample received after
   * that moment (see movedOf).
   */
  final: ActionRecord | undefined;
  /** Local ms when the last run became terminal. */
  endedAtMs: number | undefined;
}

export interface ActionTrackerOptions {
  readonly actuators: ReadonlyMap<string, Actuator>;
  readonly staleAfterMs: number;
  readonly now: () => number;
  readonly latest: () => JointSample | undefined;
}

/**
 * The actions this process sent, and what /joint_states says each did. A ROS
 * goal cannot be looked up by anyone else's id, so this is all queryAction
 * can know.
 */
export class ActionTracker {
  readonly #options: ActionTrackerOptions;
  readonly #tracks = new Map<string, ActionTrack>();

  constructor(options: ActionTrackerOptions) {
    this.#options = options;
  }

  get(actionId: string): ActionTrack | undefined {
    return this.#tracks.get(actionId);
  }

  remember(track: ActionTrack): void {
    this.#tracks.set(track.actionId, track);
    if (this.#tracks.size <= MAX_TRACKED_ACTIONS) return;
    for (const [id, t] of this.#tracks) {
      if (this.#tracks.size <= MAX_TRACKED_ACTIONS) break;
      if (t.final) this.#tracks.delete(id);
    }
  }

  /** A run changed phase: freeze the record once every run is terminal. */
  onRunChange(actionId: string): void {
    const track = this.#tracks.get(actionId);
    if (track && !track.final && track.runs.every((r) => r.terminal)) {
      track.endedAtMs = this.#options.now();
      track.final = this.#computeRecord(track, this.#options.latest());
    }
  }

  /** A run's outcome was amended after the record froze: recompute it, keeping when it ended. */
  refreeze(track: ActionTrack): void {
    if (track.final) track.final = this.#computeRecord(track, this.#options.latest());
  }

  /** Action ids of the motions with a goal not yet ended (what a loss of the link leaves in flight). */
  activeIds(): string[] {
    return [...this.#tracks.values()].filter((t) => t.runs.some((r) => !r.terminal)).map((t) => t.actionId);
  }

  /** Every goal of ours that has not ended, with its motion. */
  unfinishedRuns(): Array<{ readonly track: ActionTrack; readonly run: GoalRun }> {
    const out: Array<{ track: ActionTrack; run: GoalRun }> = [];
    for (const t of this.#tracks.values()) for (const r of t.runs) if (!r.terminal) out.push({ track: t, run: r });
    return out;
  }

  /** Our goals on this server that have not ended. */
  activeRuns(server: GoalServer): GoalRun[] {
    const runs: GoalRun[] = [];
    for (const t of this.#tracks.values()) {
      for (const r of t.runs) if (!r.terminal && sameServer(r.server, server)) runs.push(r);
    }
    return runs;
  }

  recordOf(track: ActionTrack, sample: JointSample | undefined = this.#options.latest()): ActionRecord | undefined {
    if (track.runs.some((r) => r.phase === "lost")) return undefined;
    const final = track.final;
    if (!final) return this.#computeRecord(track, sample);
    if (final.moved === undefined && final.state !== "rejected") {
      const moved = this.#moved(track, true, sample);
      if (moved !== undefined) track.final = { ...final, moved };
    }
    return track.final;
  }

  recentRecords(sample: JointSample): ActionRecord[] {
    const records: ActionRecord[] = [];
    for (const t of [...this.#tracks.values()].slice(-STATUS_ACTIONS)) {
      const r = this.recordOf(t, sample);
      if (r) records.push(r);
    }
    return records;
  }

  /** Whether a sample shows these axes at their targets (within tolerance) and still. */
  atTargetAndStill(track: ActionTrack, axes: readonly string[], sample: JointSample): boolean {
    return axes.every((axis) => {
      const target = track.targets[axis];
      const observed = sample.axes[axis];
      const tol = this.#options.actuators.get(axis)?.tolerance ?? 0;
      return (
        target !== undefined &&
        observed !== undefined &&
        !observed.moving &&
        Math.abs(observed.position - target) <= tol
      );
    });
  }

  #computeRecord(track: ActionTrack, sample: JointSample | undefined): ActionRecord {
    const outcomes = track.runs.map((r) => r.outcome());
    const detail = outcomes
      .map((o, i) => o?.detail ?? `${track.runs[i]?.actionName ?? "?"}: ${track.runs[i]?.phase ?? "?"}`)
      .join("; ");
    const states = outcomes.map((o) => o?.state);
    let state: ArmActionState;
    if (states.some((s) => s === undefined)) state = "executing";
    else if (states.every((s) => s === "reached")) state = "reached";
    // The arm reached its targets and the gripper closed on an object: what was asked.
    else if (states.every((s) => s === "reached" || s === "grasped")) state = "grasped";
    else if (states.every((s) => s === "rejected")) state = "rejected";
    else if (states.includes("faulted")) state = "faulted";
    else if (states.includes("stalled")) state = "stalled";
    else if (states.includes("stopped")) state = "stopped";
    // Some goals ran while another was rejected: the motion is only partly done.
    else state = "faulted";
    return {
      actionId: track.actionId,
      state,
      moved: state === "rejected" ? false : this.#moved(track, state !== "executing", sample),
      detail,
    };
  }

  /**
   * Evidence from /joint_states: displaced beyond tolerance → true; still and
   * in place in a sample received after the action ended → false. A sample
   * from before the end proves nothing about "not moved": the arm may have
   * moved between it and the end (a paused stream, or a goal that ran and was
   * cancelled between two samples).
   */
  #moved(track: ActionTrack, ended: boolean, status: JointSample | undefined): boolean | undefined {
    if (!status || this.#options.now() - status.stampMs > this.#options.staleAfterMs) return undefined;
    let still = true;
    for (const axis of track.axes) {
      const observed = status.axes[axis];
      const from = track.start[axis];
      const tol = this.#options.actuators.get(axis)?.tolerance ?? 0;
      if (observed === undefined || from === undefined) return undefined;
      if (Math.abs(observed.position - from) > tol) return true;
      if (observed.moving) still = false;
    }
    const measuredAfterEnd = track.endedAtMs !== undefined && status.stampMs >= track.endedAtMs;
    return ended && measuredAfterEnd && still ? false : undefined;
  }
}
