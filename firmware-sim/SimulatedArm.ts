import type { Logger } from "pino";
import { ArmbridgeError } from "../src/errors.js";
import type { AxisSample, NackCode, WireActionRecord, WireActionState } from "../src/protocol/serial/index.js";
import type { Clock, ClockTimer } from "./Clock.js";
import type { Actuator } from "../src/config/actuators.js";
import type { EffectsSink, Outcome } from "./EffectsLog.js";
import type { FaultPlan } from "./faults.js";
import { drawMotionMs, type MotionTime } from "./motionTime.js";
import { brake, hold, minimumDuration, trapezoid, type Trajectory } from "./Trajectory.js";

/** One axis as the device knows it: the arm config's actuator, less the bridge-side tolerance and lock key. */
export type SimAxis = Pick<Actuator, "name" | "kind" | "min" | "max" | "maxVelocity" | "maxAcceleration" | "home">;

export interface MoveRequest {
  readonly actionId: string;
  readonly speed: number;
  readonly durationMs: number;
  readonly targets: readonly { readonly axis: number; readonly position: number }[];
}

/** What the device answers to a MOVE: the action's record, or a refusal. */
export type MoveReply =
  | { readonly kind: "action"; readonly record: WireActionRecord; readonly detail: string }
  | { readonly kind: "nack"; readonly code: NackCode; readonly reason: string };

export interface SimulatedArmOptions {
  readonly axes: readonly SimAxis[];
  readonly clock: Clock;
  readonly faults: FaultPlan;
  readonly effects: EffectsSink;
  readonly motionTime: MotionTime;
  readonly logger: Logger;
  /** Action ids remembered since boot (oldest finished ones are forgotten first). */
  readonly actionMemory?: number;
  /** Action records carried in each STATUS besides the executing ones. */
  readonly statusActions?: number;
  /** After a reboot the device is deaf and mute this long, like an MCU coming up. */
  readonly bootMs?: number;
  /** Axis names whose next motion stalls half-way, once each: a fault on cue (demo, tests). */
  readonly stallJoints?: readonly string[];
  /** Axis names whose next motion loses power half-way, once each (--power-loss-joint). */
  readonly powerLossJoints?: readonly string[];
  /** How long a power loss on cue lasts (ms). Default 500. */
  readonly powerLossMs?: number;
}

interface StoredAction {
  record: WireActionRecord;
  detail: string;
  readonly axes: readonly number[];
}

interface ActiveMotion {
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

/**
 * `moved` is true when some axis ends farther than this from where it began
 * (docs/serial-protocol.md §2.2): about four float32 steps near π, so a MOVE
 * to the present position, which the host can only name at f32 precision,
 * reports moved=false rather than a sub-ulp "motion".
 */
const MOVED_EPSILON = 1e-6;

/**
 * The device model behind firmware-sim: axes with limits and trapezoidal
 * profiles, an action table that makes a MOVE idempotent on its action id
 * (the device-side half of "never move twice"), voiding, stop with braking,
 * and the seeded faults (genuine failure, stall, reboot, status freeze).
 *
 * Disjoint motions run concurrently; a MOVE on an axis another action is
 * driving is refused BUSY, never queued or blended, so overlaps on a shared
 * axis cannot happen on the device.
 */
export class SimulatedArm {
  readonly axes: readonly SimAxis[];
  private readonly clock: Clock;
  private readonly plan: FaultPlan;
  private readonly effects: EffectsSink;
  private readonly motionTime: MotionTime;
  private readonly log: Logger;
  private readonly actionMemory: number;
  private readonly statusActionCount: number;
  private readonly bootMs: number;

  private readonly positions: number[];
  private readonly owner: (ActiveMotion | undefined)[];
  private readonly stalled: boolean[];
  private readonly active = new Map<string, ActiveMotion>();
  private readonly actions = new Map<string, StoredAction>();
  private readonly rebootListeners: (() => void)[] = [];
  private readonly extraFaults = new Set<string>();
  private readonly stallOnCue: Set<string>;
  private readonly powerLossOnCue: Set<string>;
  private readonly powerLossMs: number;
  private readonly powerLossListeners: ((outageMs: number) => void)[] = [];
  private readonly actionEndListeners: ((actionId: string) => void)[] = [];
  /**
   * Action ids in the order their records last changed, oldest first, at most
   * `statusActionCount`: STATUS carries these (docs/serial-protocol.md §3.6),
   * so an action's terminal record appears however many newer actions were
   * created while it ran.
   */
  private readonly recentlyUpdated = new Set<string>();
  private currentBootId: number;
  private bootAt: number;
  private bootingUntil = -Infinity;
  private frozenUntil = -Infinity;

  constructor(options: SimulatedArmOptions) {
    this.axes = options.axes;
    this.clock = options.clock;
    this.plan = options.faults;
    this.effects = options.effects;
    this.motionTime = options.motionTime;
    this.log = options.logger;
    this.actionMemory = options.actionMemory ?? 4096;
    this.statusActionCount = options.statusActions ?? 16;
    this.bootMs = options.bootMs ?? 50;
    for (const [flag, list] of [
      ["--stall-joint", options.stallJoints],
      ["--power-loss-joint", options.powerLossJoints],
    ] as const) {
      const unknownAxes = (list ?? []).filter((n) => !this.axes.some((a) => a.name === n));
      if (unknownAxes.length > 0)
        throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
          path: flag,
          issues: `no axis named ${unknownAxes.join(", ")}`,
        });
    }
    this.stallOnCue = new Set(options.stallJoints ?? []);
    this.powerLossOnCue = new Set(options.powerLossJoints ?? []);
    this.powerLossMs = options.powerLossMs ?? 500;
    this.positions = this.axes.map((a) => a.home);
    this.owner = this.axes.map(() => undefined);
    this.stalled = this.axes.map(() => false);
    this.currentBootId = this.plan.nextBootId();
    this.bootAt = this.clock.now();
  }

  get bootId(): number {
    return this.currentBootId;
  }

  /** Milliseconds since boot, wrapping at 2^32 as the wire field does. */
  deviceTimeMs(): number {
    return Math.floor(this.clock.now() - this.bootAt) >>> 0;
  }

  /** True while the device is coming up after a reboot: it neither hears nor speaks. */
  isBooting(): boolean {
    return this.clock.now() < this.bootingUntil;
  }

  /** True while a seeded status freeze holds: the device moves on but reports nothing. */
  isStatusFrozen(): boolean {
    return this.clock.now() < this.frozenUntil;
  }

  onReboot(listener: () => void): void {
    this.rebootListeners.push(listener);
  }

  /** Called whenever an action reaches a terminal state (so the session can report it at once). */
  onActionEnd(listener: (actionId: string) => void): void {
    this.actionEndListeners.push(listener);
  }

  /** Starts, refuses, or (for an id already seen) answers with the existing record — never runs an id twice. */
  move(request: MoveRequest): MoveReply {
    const { actionId } = request;
    const existing = this.actions.get(actionId);
    if (existing) {
      this.effects.append({
        event: "duplicate_refused",
        action_id: actionId,
        joints: this.namesOf(request.targets.map((t) => t.axis)),
        existing_state: existing.record.state,
        boot_id: this.currentBootId,
      });
      this.log.info(
        { action_id: actionId, state: existing.record.state },
        "duplicate MOVE refused; answering with the existing record",
      );
      if (existing.record.state === "voided")
        return {
          kind: "nack",
          code: "VOIDED",
          reason: `action ${actionId} was voided by QUERY_ACTION; it will never run`,
        };
      return { kind: "action", record: existing.record, detail: existing.detail };
    }

    const invalid = this.validate(request);
    if (invalid) return this.refuse(request, invalid.code, invalid.reason);

    const failure = this.plan.genuineFailure();
    if (failure === "refused") return this.refuse(request, "FAULTED", "simulated drive fault: motion refused");

    const axes = request.targets.map((t) => t.axis);
    const targets = request.targets.map((t) => this.clamp(t.axis, t.position));
    const from = axes.map((i) => this.positions[i] ?? 0);
    const now = this.clock.now();
    this.remember(actionId, { record: { actionId, state: "executing", moved: undefined }, detail: "", axes });
    this.effects.append({
      event: "motion_start",
      action_id: actionId,
      joints: this.namesOf(axes),
      from: this.byName(axes, from),
      to: this.byName(axes, targets),
      boot_id: this.currentBootId,
    });

    if (failure === "faulted_at_start") {
      this.settle(actionId, axes, from, from, "faulted", "simulated drive fault at start; nothing moved");
      this.log.info({ action_id: actionId }, "simulated fault at motion start");
      const stored = this.actions.get(actionId);
      return {
        kind: "action",
        record: stored?.record ?? { actionId, state: "faulted", moved: false },
        detail: stored?.detail ?? "",
      };
    }

    for (const i of axes) {
      this.stalled[i] = false;
      this.extraFaults.delete(`stall:${this.axes[i]?.name ?? i}`);
    }
    const durationMs = this.plannedDurationMs(request, axes, from, targets);
    const motion: ActiveMotion = {
      actionId,
      axes,
      from,
      trajectories: axes.map((axis, k) =>
        trapezoid(from[k] ?? 0, targets[k] ?? 0, now, durationMs, this.axes[axis]?.maxAcceleration ?? 1),
      ),
      phase: "running",
      timer: undefined,
      faultTimer: undefined,
      stopReason: "",
    };
    this.active.set(actionId, motion);
    for (const i of axes) this.owner[i] = motion;
    const moved = targets.some((t, k) => Math.abs(t - (from[k] ?? 0)) > MOVED_EPSILON);
    this.updateRecord(actionId, { actionId, state: "executing", moved }, `moving for ${Math.round(durationMs)} ms`);
    this.log.info(
      { action_id: actionId, axes: this.namesOf(axes), duration_ms: Math.round(durationMs) },
      "motion started",
    );

    // Drawn even when a stall on cue overrides it, so the seeded faults of later motions stay the same.
    const seeded = this.plan.midMotion();
    const cued = axes.find((i) => this.stallOnCue.has(this.axes[i]?.name ?? ""));
    if (cued !== undefined) this.stallOnCue.delete(this.axes[cued]?.name ?? "");
    const powerCued =
      cued === undefined ? axes.find((i) => this.powerLossOnCue.delete(this.axes[i]?.name ?? "")) : undefined;
    const faults =
      cued !== undefined
        ? { stall: { fraction: 0.5, pick: (axes.indexOf(cued) + 0.5) / axes.length } }
        : powerCued !== undefined
          ? {}
          : seeded;
    if (powerCued !== undefined)
      motion.faultTimer = this.clock.setTimer(durationMs * 0.5, () => this.powerLoss(this.powerLossMs));
    if (faults.freezeMs !== undefined) this.frozenUntil = Math.max(this.frozenUntil, now + faults.freezeMs);
    motion.timer = this.clock.setTimer(durationMs, () =>
      this.finishMotion(motion, "reached", "target reached", now + durationMs),
    );
    if (faults.stall) {
      const { fraction, pick } = faults.stall;
      const axis = axes[Math.floor(pick * axes.length)] ?? axes[0] ?? 0;
      motion.faultTimer = this.clock.setTimer(durationMs * fraction, () =>
        this.stallMotion(motion, axis, now + durationMs * fraction),
      );
    } else if (faults.reboot) {
      motion.faultTimer = this.clock.setTimer(durationMs * faults.reboot.fraction, () => this.reboot());
    }
    return {
      kind: "action",
      record: this.actions.get(actionId)?.record ?? { actionId, state: "executing", moved },
      detail: `moving for ${Math.round(durationMs)} ms`,
    };
  }

  /**
   * Halts the actions driving these axes (all when "all"), braking at no more
   * than each axis's max acceleration; they end `stopped` once still. Also
   * clears stall flags on the axes, as a fault reset.
   */
  stop(axes: readonly number[] | "all", reason: string): void {
    const list = axes === "all" ? this.axes.map((_, i) => i) : axes;
    for (const i of list) {
      this.stalled[i] = false;
      this.extraFaults.delete(`stall:${this.axes[i]?.name ?? i}`);
    }
    const motions = new Set<ActiveMotion>();
    for (const i of list) {
      const m = this.owner[i];
      if (m) motions.add(m);
    }
    for (const m of motions) this.brakeMotion(m, reason);
  }

  /** The device's record of `actionId`; with `voidIfUnknown`, an unknown id is recorded voided so it can never run. */
  query(actionId: string, voidIfUnknown: boolean): { record: WireActionRecord; detail: string } {
    const stored = this.actions.get(actionId);
    if (stored) return { record: stored.record, detail: stored.detail };
    if (!voidIfUnknown)
      return {
        record: { actionId, state: "unknown", moved: undefined },
        detail: `no record since boot ${this.currentBootId}`,
      };
    const detail = `voided by QUERY_ACTION in boot ${this.currentBootId}`;
    this.remember(actionId, { record: { actionId, state: "voided", moved: false }, detail, axes: [] });
    this.effects.append({ event: "voided", action_id: actionId, joints: [], boot_id: this.currentBootId });
    this.log.info({ action_id: actionId }, "unknown action voided on query");
    return { record: { actionId, state: "voided", moved: false }, detail };
  }

  /** Raises or clears a device-level fault string reported in STATUS (e.g. the watchdog). */
  setFault(fault: string, active: boolean): void {
    if (active) this.extraFaults.add(fault);
    else this.extraFaults.delete(fault);
  }

  samples(): AxisSample[] {
    const now = this.clock.now();
    return this.axes.map((_, i) => {
      const m = this.owner[i];
      const k = m ? m.axes.indexOf(i) : -1;
      const traj = m ? m.trajectories[k] : undefined;
      return {
        position: traj ? traj.positionAt(now) : (this.positions[i] ?? 0),
        velocity: traj ? traj.velocityAt(now) : 0,
        moving: m !== undefined,
        stalled: this.stalled[i] ?? false,
      };
    });
  }

  faults(): string[] {
    return [...this.extraFaults].sort();
  }

  /** The most recently updated records (oldest update first), then any executing action not among them. */
  statusActions(): WireActionRecord[] {
    const ids = new Set(this.recentlyUpdated);
    for (const id of this.active.keys()) ids.add(id);
    const out: WireActionRecord[] = [];
    for (const id of ids) {
      const stored = this.actions.get(id);
      if (stored) out.push(stored.record);
    }
    return out;
  }

  /** Current positions by axis name (tests, logs). */
  positionsByName(): Record<string, number> {
    const samples = this.samples();
    return Object.fromEntries(this.axes.map((a, i) => [a.name, samples[i]?.position ?? 0]));
  }

  activeActionIds(): string[] {
    return [...this.active.keys()];
  }

  /** Called when the device loses power (after its reboot is recorded), with how long it stays off. */
  onPowerLoss(listener: (outageMs: number) => void): void {
    this.powerLossListeners.push(listener);
  }

  /**
   * Power off for `outageMs`, then a boot: every motion ends where it is,
   * the device neither hears nor speaks until it is back (off, then booting),
   * and comes up with a new boot id and no memory of actions. The axes stay
   * where they stopped (brakes, or an absolute encoder read at boot).
   */
  powerLoss(outageMs: number): void {
    this.reboot();
    this.bootingUntil = this.clock.now() + outageMs + this.bootMs;
    for (const listener of this.powerLossListeners) listener(outageMs);
  }

  /** Cuts power now: every motion ends where it is (`stopped`), action memory is lost, a new bootId. */
  reboot(): void {
    const now = this.clock.now();
    const interrupted: string[] = [];
    for (const m of [...this.active.values()]) {
      this.finishMotion(m, "stopped", "device rebooted mid-motion", now);
      interrupted.push(m.actionId);
    }
    const oldBootId = this.currentBootId;
    this.currentBootId = this.plan.nextBootId(oldBootId);
    this.actions.clear();
    this.recentlyUpdated.clear();
    this.extraFaults.clear();
    this.stalled.fill(false);
    this.bootAt = now;
    this.bootingUntil = now + this.bootMs;
    this.frozenUntil = -Infinity;
    this.effects.append({
      event: "reboot",
      action_id: null,
      joints: [],
      interrupted,
      old_boot_id: oldBootId,
      boot_id: this.currentBootId,
    });
    this.log.warn({ interrupted, boot_id: this.currentBootId }, "simulated reboot: action memory lost");
    for (const listener of this.rebootListeners) listener();
  }

  /** Ends every timer; the arm is unusable afterwards. */
  close(): void {
    for (const m of this.active.values()) this.clearTimers(m);
  }

  // ------------------------------------------------------------ internals

  private validate(request: MoveRequest): { code: NackCode; reason: string } | undefined {
    if (request.targets.length === 0) return { code: "BAD_AXIS", reason: "MOVE names no axis" };
    if (!(request.speed > 0 && request.speed <= 1))
      return { code: "BAD_FRAME", reason: `speed ${request.speed} is not in (0, 1]` };
    const seen = new Set<number>();
    for (const t of request.targets) {
      const axis = this.axes[t.axis];
      if (!axis) return { code: "BAD_AXIS", reason: `axis ${t.axis} does not exist (device has ${this.axes.length})` };
      if (seen.has(t.axis)) return { code: "BAD_AXIS", reason: `axis ${axis.name} is listed twice` };
      seen.add(t.axis);
      // Limits travel as float32 (HELLO); compare at that precision so a target at the limit is accepted.
      if (t.position < Math.fround(axis.min) || t.position > Math.fround(axis.max)) {
        return {
          code: "OUT_OF_LIMITS",
          reason: `${axis.name} target ${t.position} is outside [${axis.min}, ${axis.max}]`,
        };
      }
    }
    for (const t of request.targets) {
      const busy = this.owner[t.axis];
      if (busy) return { code: "BUSY", reason: `${this.axes[t.axis]?.name} is driven by action ${busy.actionId}` };
    }
    return undefined;
  }

  private refuse(request: MoveRequest, code: NackCode, reason: string): MoveReply {
    const axes = request.targets.map((t) => t.axis).filter((i) => i < this.axes.length);
    this.remember(request.actionId, {
      record: { actionId: request.actionId, state: "rejected", moved: false },
      detail: `${code}: ${reason}`,
      axes,
    });
    this.log.info({ action_id: request.actionId, code, reason }, "MOVE refused; nothing moved");
    return { kind: "nack", code, reason };
  }

  private plannedDurationMs(
    request: MoveRequest,
    axes: readonly number[],
    from: readonly number[],
    targets: readonly number[],
  ): number {
    const imposed = drawMotionMs(this.motionTime, this.plan);
    if (imposed !== undefined) return imposed;
    let seconds = 0;
    axes.forEach((i, k) => {
      const axis = this.axes[i];
      if (!axis) return;
      seconds = Math.max(
        seconds,
        minimumDuration((targets[k] ?? 0) - (from[k] ?? 0), axis.maxVelocity * request.speed, axis.maxAcceleration),
      );
    });
    return Math.max(seconds * 1000, request.durationMs);
  }

  private clamp(axis: number, position: number): number {
    const a = this.axes[axis];
    return a ? Math.min(Math.max(position, a.min), a.max) : position;
  }

  private brakeMotion(m: ActiveMotion, reason: string): void {
    if (m.phase === "braking" || !this.active.has(m.actionId)) return;
    const now = this.clock.now();
    this.clearTimers(m);
    m.phase = "braking";
    m.stopReason = reason;
    m.trajectories = m.trajectories.map((traj, k) => {
      const p = traj.positionAt(now);
      const v = traj.velocityAt(now);
      const axis = this.axes[m.axes[k] ?? 0];
      // Brake no harder than the axis allows, but never past the target (an imposed motion time may have run it faster).
      const remaining = Math.abs(traj.to - p);
      const decel = Math.max(axis?.maxAcceleration ?? 1, remaining > 0 ? (v * v) / (2 * remaining) : 0);
      return v === 0 ? hold(p, now, now) : brake(p, v, now, decel);
    });
    const endMs = Math.max(now, ...m.trajectories.map((t) => t.endMs));
    this.log.info({ action_id: m.actionId, reason }, "braking");
    if (endMs <= now) {
      this.finishMotion(m, "stopped", reason, now);
      return;
    }
    m.timer = this.clock.setTimer(endMs - now, () => this.finishMotion(m, "stopped", reason, endMs));
  }

  private clearTimers(m: ActiveMotion): void {
    if (m.timer) this.clock.clearTimer(m.timer);
    if (m.faultTimer) this.clock.clearTimer(m.faultTimer);
    m.timer = undefined;
    m.faultTimer = undefined;
  }

  private stallMotion(m: ActiveMotion, axis: number, atMs: number): void {
    if (!this.active.has(m.actionId) || m.phase !== "running") return;
    this.stalled[axis] = true;
    this.extraFaults.add(`stall:${this.axes[axis]?.name ?? axis}`);
    this.finishMotion(m, "stalled", `${this.axes[axis]?.name ?? axis} stalled`, atMs);
  }

  private finishMotion(m: ActiveMotion, outcome: Outcome, detail: string, atMs: number): void {
    if (this.active.get(m.actionId) !== m) return;
    this.clearTimers(m);
    this.active.delete(m.actionId);
    const to = m.trajectories.map((t) => (outcome === "reached" ? t.to : t.positionAt(atMs)));
    m.axes.forEach((i, k) => {
      this.positions[i] = to[k] ?? this.positions[i] ?? 0;
      if (this.owner[i] === m) this.owner[i] = undefined;
    });
    this.settle(
      m.actionId,
      m.axes,
      m.from,
      to,
      outcome,
      outcome === "stopped" && m.phase === "braking" ? m.stopReason : detail,
    );
    this.log.info({ action_id: m.actionId, outcome, detail }, "motion ended");
  }

  private settle(
    actionId: string,
    axes: readonly number[],
    from: readonly number[],
    to: readonly number[],
    outcome: Outcome,
    detail: string,
  ): void {
    const moved = to.some((p, k) => Math.abs(p - (from[k] ?? 0)) > MOVED_EPSILON);
    const state: WireActionState = outcome;
    this.updateRecord(actionId, { actionId, state, moved }, detail);
    // Ground truth first: listeners send the STATUS that reports this end.
    this.effects.append({
      event: "motion_end",
      action_id: actionId,
      joints: this.namesOf(axes),
      from: this.byName(axes, from),
      to: this.byName(axes, to),
      outcome,
      detail,
      boot_id: this.currentBootId,
    });
    for (const listener of this.actionEndListeners) listener(actionId);
  }

  private remember(actionId: string, stored: StoredAction): void {
    this.actions.set(actionId, stored);
    this.touch(actionId);
    if (this.actions.size <= this.actionMemory) return;
    for (const id of this.actions.keys()) {
      if (this.actions.size <= this.actionMemory) break;
      if (!this.active.has(id)) this.actions.delete(id);
    }
  }

  private updateRecord(actionId: string, record: WireActionRecord, detail: string): void {
    const stored = this.actions.get(actionId);
    if (!stored) return;
    stored.record = record;
    stored.detail = detail;
    this.touch(actionId);
  }

  /** Marks `actionId` as the most recently updated record. */
  private touch(actionId: string): void {
    this.recentlyUpdated.delete(actionId);
    this.recentlyUpdated.add(actionId);
    while (this.recentlyUpdated.size > this.statusActionCount) {
      const oldest = this.recentlyUpdated.values().next();
      if (oldest.done) break;
      this.recentlyUpdated.delete(oldest.value);
    }
  }

  private namesOf(axes: readonly number[]): string[] {
    return axes.map((i) => this.axes[i]?.name ?? `axis${i}`);
  }

  private byName(axes: readonly number[], values: readonly number[]): Record<string, number> {
    return Object.fromEntries(axes.map((i, k) => [this.axes[i]?.name ?? `axis${i}`, values[k] ?? 0]));
  }
}
