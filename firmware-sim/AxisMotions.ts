import type { Logger } from "pino";
import type { AxisSample } from "../src/protocol/serial/index.js";
import type { Clock, ClockTimer } from "./Clock.js";
import type { Outcome } from "./EffectsLog.js";
import type { SimAxis } from "./MoveRequest.js";
import { brake, hold, trapezoid, type Trajectory } from "./Trajectory.js";

/** One action's motion on its axes, from its start until it is still. */
export interface ActiveMotion {
  readonly actionId: string;
  readonly axes: readonly number[];
  readonly from: readonly number[];
  trajectories: Trajectory[];
  phase: "running" | "braking";
  timer: ClockTimer | undefined;
  /** A seeded stall or reboot planned part-way through the motion. */
  faultTimer: ClockTimer | undefined;
  /** Why a braking motion is being stopped (record detail). */
  stopReason: string;
}

export interface AxisMotionsOptions {
  readonly axes: readonly SimAxis[];
  readonly clock: Clock;
  readonly logger: Logger;
  /** The device-level faults STATUS reports: a stalled axis adds `stall:<name>` there. */
  readonly faults: Set<string>;
  /** A motion has ended with these end positions (the device records and reports it). */
  readonly onEnd: (motion: ActiveMotion, to: readonly number[], outcome: Outcome, detail: string) => void;
}

/**
 * The physics of the serial device's axes: where each is, which motion
 * drives it, and the trapezoids, brakes and stalls that move it. Disjoint
 * motions run at once; an axis has one owner at most.
 */
export class AxisMotions {
  readonly #options: AxisMotionsOptions;
  readonly #axes: readonly SimAxis[];
  readonly #positions: number[];
  readonly #owner: (ActiveMotion | undefined)[];
  readonly #stalled: boolean[];
  readonly #active = new Map<string, ActiveMotion>();

  constructor(options: AxisMotionsOptions) {
    this.#options = options;
    this.#axes = options.axes;
    this.#positions = this.#axes.map((a) => a.home);
    this.#owner = this.#axes.map(() => undefined);
    this.#stalled = this.#axes.map(() => false);
  }

  positionOf(axis: number): number {
    return this.#positions[axis] ?? 0;
  }

  /** The action driving an axis, if any. */
  ownerOf(axis: number): string | undefined {
    return this.#owner[axis]?.actionId;
  }

  isActive(actionId: string): boolean {
    return this.#active.has(actionId);
  }

  activeIds(): string[] {
    return [...this.#active.keys()];
  }

  /** Clears the stall flags of these axes, as a fault reset. */
  clearStalls(axes: readonly number[]): void {
    for (const i of axes) {
      this.#stalled[i] = false;
      this.#options.faults.delete(`stall:${this.#axes[i]?.name ?? i}`);
    }
  }

  /** Starts one action's motion: every axis on a trapezoid lasting `durationMs`. */
  start(
    actionId: string,
    move: { readonly axes: readonly number[]; readonly from: readonly number[]; readonly targets: readonly number[] },
    durationMs: number,
    now: number,
  ): ActiveMotion {
    const { axes, from, targets } = move;
    const motion: ActiveMotion = {
      actionId,
      axes,
      from,
      trajectories: axes.map((axis, k) =>
        trapezoid(from[k] ?? 0, targets[k] ?? 0, now, durationMs, this.#axes[axis]?.maxAcceleration ?? 1),
      ),
      phase: "running",
      timer: undefined,
      faultTimer: undefined,
      stopReason: "",
    };
    this.#active.set(actionId, motion);
    for (const i of axes) this.#owner[i] = motion;
    return motion;
  }

  /** Brakes the motions driving these axes and clears their stall flags. */
  stop(axes: readonly number[], reason: string): void {
    this.clearStalls(axes);
    const motions = new Set<ActiveMotion>();
    for (const i of axes) {
      const m = this.#owner[i];
      if (m) motions.add(m);
    }
    for (const m of motions) this.brake(m, reason);
  }

  brake(m: ActiveMotion, reason: string): void {
    if (m.phase === "braking" || !this.#active.has(m.actionId)) return;
    const { clock, logger } = this.#options;
    const now = clock.now();
    this.#clearTimers(m);
    m.phase = "braking";
    m.stopReason = reason;
    m.trajectories = m.trajectories.map((traj, k) => {
      const p = traj.positionAt(now);
      const v = traj.velocityAt(now);
      const axis = this.#axes[m.axes[k] ?? 0];
      // Brake no harder than the axis allows, but never past the target (an imposed motion time may have run it faster).
      const remaining = Math.abs(traj.to - p);
      const decel = Math.max(axis?.maxAcceleration ?? 1, remaining > 0 ? (v * v) / (2 * remaining) : 0);
      return v === 0 ? hold(p, now, now) : brake(p, v, now, decel);
    });
    const endMs = Math.max(now, ...m.trajectories.map((t) => t.endMs));
    logger.info({ action_id: m.actionId, reason }, "braking");
    if (endMs <= now) {
      this.finish(m, "stopped", reason, now);
      return;
    }
    m.timer = clock.setTimer(endMs - now, () => this.finish(m, "stopped", reason, endMs));
  }

  stall(m: ActiveMotion, axis: number, atMs: number): void {
    if (!this.#active.has(m.actionId) || m.phase !== "running") return;
    this.#stalled[axis] = true;
    this.#options.faults.add(`stall:${this.#axes[axis]?.name ?? axis}`);
    this.finish(m, "stalled", `${this.#axes[axis]?.name ?? axis} stalled`, atMs);
  }

  finish(m: ActiveMotion, outcome: Outcome, detail: string, atMs: number): void {
    if (this.#active.get(m.actionId) !== m) return;
    this.#clearTimers(m);
    this.#active.delete(m.actionId);
    const to = m.trajectories.map((t) => (outcome === "reached" ? t.to : t.positionAt(atMs)));
    m.axes.forEach((i, k) => {
      this.#positions[i] = to[k] ?? this.#positions[i] ?? 0;
      if (this.#owner[i] === m) this.#owner[i] = undefined;
    });
    this.#options.onEnd(m, to, outcome, outcome === "stopped" && m.phase === "braking" ? m.stopReason : detail);
    this.#options.logger.info({ action_id: m.actionId, outcome, detail }, "motion ended");
  }

  /** Ends every motion where it is (`stopped`, with this detail); the ids of those cut short. */
  stopAllAt(detail: string, now: number): string[] {
    const interrupted: string[] = [];
    for (const m of [...this.#active.values()]) {
      this.finish(m, "stopped", detail, now);
      interrupted.push(m.actionId);
    }
    this.#stalled.fill(false);
    return interrupted;
  }

  samples(now: number): AxisSample[] {
    return this.#axes.map((_, i) => {
      const m = this.#owner[i];
      const k = m ? m.axes.indexOf(i) : -1;
      const traj = m ? m.trajectories[k] : undefined;
      return {
        position: traj ? traj.positionAt(now) : (this.#positions[i] ?? 0),
        velocity: traj ? traj.velocityAt(now) : 0,
        moving: m !== undefined,
        stalled: this.#stalled[i] ?? false,
      };
    });
  }

  /** Ends every timer. */
  close(): void {
    for (const m of this.#active.values()) this.#clearTimers(m);
  }

  #clearTimers(m: ActiveMotion): void {
    const { clock } = this.#options;
    if (m.timer) clock.clearTimer(m.timer);
    if (m.faultTimer) clock.clearTimer(m.faultTimer);
    m.timer = undefined;
    m.faultTimer = undefined;
  }
}
