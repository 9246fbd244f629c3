import type { Logger } from "pino";
import type { AxisSample, NackCode, WireActionRecord, WireActionState } from "../src/protocol/serial/index.js";
import type { Clock } from "./Clock.js";
import type { EffectsSink, Outcome } from "./EffectsLog.js";
import type { FaultPlan } from "./faults.js";
import { ActionTable, type StoredAction } from "./ActionTable.js";
import { AxisMotions, type ActiveMotion } from "./AxisMotions.js";
import { ArmFaultCues } from "./armFaultCues.js";
import type { MotionTime } from "./motionTime.js";
import {
  clampToAxis,
  plannedDurationMs,
  refusalOf,
  type MoveReply,
  type MoveRequest,
  type SimAxis,
} from "./MoveRequest.js";

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
  private readonly bootMs: number;

  private readonly motions: AxisMotions;
  private readonly actions: ActionTable;
  private readonly rebootListeners: (() => void)[] = [];
  private readonly extraFaults = new Set<string>();
  private readonly cues: ArmFaultCues;
  private readonly powerLossMs: number;
  private readonly powerLossListeners: ((outageMs: number) => void)[] = [];
  private readonly actionEndListeners: ((actionId: string) => void)[] = [];
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
    this.actions = new ActionTable({
      memory: options.actionMemory ?? 4096,
      statusActionCount: options.statusActions ?? 16,
      isActive: (id) => this.motions.isActive(id),
    });
    this.bootMs = options.bootMs ?? 50;
    this.cues = new ArmFaultCues(
      this.plan,
      this.axes.map((a) => a.name),
      options,
    );
    this.powerLossMs = options.powerLossMs ?? 500;
    this.motions = new AxisMotions({
      axes: this.axes,
      clock: this.clock,
      logger: this.log,
      faults: this.extraFaults,
      onEnd: (m, to, outcome, detail) => this.settle(m.actionId, m.axes, m.from, to, outcome, detail),
    });
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
    if (existing) return this.answerDuplicate(request, existing);

    const invalid = refusalOf(request, this.axes, (axis) => this.motions.ownerOf(axis));
    if (invalid) return this.refuse(request, invalid.code, invalid.reason);

    const failure = this.plan.genuineFailure();
    if (failure === "refused") return this.refuse(request, "FAULTED", "simulated drive fault: motion refused");

    const axes = request.targets.map((t) => t.axis);
    const targets = request.targets.map((t) => clampToAxis(this.axes, t.axis, t.position));
    const from = axes.map((i) => this.motions.positionOf(i));
    const now = this.clock.now();
    this.actions.remember(actionId, { record: { actionId, state: "executing", moved: undefined }, detail: "", axes });
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

    this.motions.clearStalls(axes);
    const durationMs = plannedDurationMs(
      request,
      this.axes,
      { axes, from, targets },
      { motionTime: this.motionTime, plan: this.plan },
    );
    const motion = this.motions.start(actionId, { axes, from, targets }, durationMs, now);
    const moved = targets.some((t, k) => Math.abs(t - (from[k] ?? 0)) > MOVED_EPSILON);
    this.actions.update(actionId, { actionId, state: "executing", moved }, `moving for ${Math.round(durationMs)} ms`);
    this.log.info(
      { action_id: actionId, axes: this.namesOf(axes), duration_ms: Math.round(durationMs) },
      "motion started",
    );

    this.armFaults(motion, durationMs, now);
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
    this.motions.stop(axes === "all" ? this.axes.map((_, i) => i) : axes, reason);
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
    this.actions.remember(actionId, { record: { actionId, state: "voided", moved: false }, detail, axes: [] });
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
    return this.motions.samples(this.clock.now());
  }

  faults(): string[] {
    return [...this.extraFaults].sort();
  }

  /** The most recently updated records (oldest update first), then any executing action not among them. */
  statusActions(): WireActionRecord[] {
    return this.actions.statusRecords(this.motions.activeIds());
  }

  /** Current positions by axis name (tests, logs). */
  positionsByName(): Record<string, number> {
    const samples = this.samples();
    return Object.fromEntries(this.axes.map((a, i) => [a.name, samples[i]?.position ?? 0]));
  }

  activeActionIds(): string[] {
    return this.motions.activeIds();
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
    const interrupted = this.motions.stopAllAt("device rebooted mid-motion", now);
    const oldBootId = this.currentBootId;
    this.currentBootId = this.plan.nextBootId(oldBootId);
    this.actions.clear();
    this.extraFaults.clear();
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
    this.motions.close();
  }

  // ------------------------------------------------------------ internals

  private refuse(request: MoveRequest, code: NackCode, reason: string): MoveReply {
    const axes = request.targets.map((t) => t.axis).filter((i) => i < this.axes.length);
    this.actions.remember(request.actionId, {
      record: { actionId: request.actionId, state: "rejected", moved: false },
      detail: `${code}: ${reason}`,
      axes,
    });
    this.log.info({ action_id: request.actionId, code, reason }, "MOVE refused; nothing moved");
    return { kind: "nack", code, reason };
  }

  /** Answers a MOVE of an id already seen with its record: a MOVE never runs twice. */
  private answerDuplicate(request: MoveRequest, existing: StoredAction): MoveReply {
    const { actionId } = request;
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

  /** Arms the motion's end and the faults due part-way through it (on cue, else seeded). */
  private armFaults(motion: ActiveMotion, durationMs: number, now: number): void {
    const { faults, powerLoss } = this.cues.draw(motion.axes, (i) => this.axes[i]?.name ?? "");
    if (powerLoss) motion.faultTimer = this.clock.setTimer(durationMs * 0.5, () => this.powerLoss(this.powerLossMs));
    if (faults.freezeMs !== undefined) this.frozenUntil = Math.max(this.frozenUntil, now + faults.freezeMs);
    motion.timer = this.clock.setTimer(durationMs, () =>
      this.motions.finish(motion, "reached", "target reached", now + durationMs),
    );
    if (faults.stall) {
      const { fraction, pick } = faults.stall;
      const axis = motion.axes[Math.floor(pick * motion.axes.length)] ?? motion.axes[0] ?? 0;
      motion.faultTimer = this.clock.setTimer(durationMs * fraction, () =>
        this.motions.stall(motion, axis, now + durationMs * fraction),
      );
    } else if (faults.reboot) {
      motion.faultTimer = this.clock.setTimer(durationMs * faults.reboot.fraction, () => this.reboot());
    }
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
    this.actions.update(actionId, { actionId, state, moved }, detail);
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

  private namesOf(axes: readonly number[]): string[] {
    return axes.map((i) => this.axes[i]?.name ?? `axis${i}`);
  }

  private byName(axes: readonly number[], values: readonly number[]): Record<string, number> {
    return Object.fromEntries(axes.map((i, k) => [this.axes[i]?.name ?? `axis${i}`, values[k] ?? 0]));
  }
}
