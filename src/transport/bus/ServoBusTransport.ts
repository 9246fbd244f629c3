import { randomBytes } from "node:crypto";
import { pino, type Logger } from "pino";
import { actuatorsOf, type Actuator } from "../../config/actuators.js";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import type { ByteLink } from "../link/ByteLink.js";
import { LinkStateTracker } from "../link/LinkStateTracker.js";
import type { ActionRecord, ActionState, ArmStatus, AxisState, HaltResult, LinkState, MotionCommand, MotionEnd, ServoRecovery, Transport } from "../Transport.js";
import { BusChannel } from "./BusChannel.js";
import { decodeRegister, encodeRegister, hardwareErrorNames, type BusProtocol, type Register, type StatusReply } from "./protocol/index.js";
import { countOf, positionOf, servoAxesOf } from "./servoAxes.js";
import { ServoArming } from "./ServoArming.js";
import { newServoState, type ServoState } from "./ServoState.js";
import { StatusSchedule } from "./StatusSchedule.js";

export interface ServoBusTransportOptions {
  readonly logger?: Logger;
  /** How long to wait for a servo's reply (ms) beyond the bytes' own wire time. */
  readonly replyMarginMs?: number;
  /** The bus baud rate, for reply deadlines (the config's bus.baud). */
  readonly baud?: number;
  /** How often a failed read is tried again before giving up on it. */
  readonly readAttempts?: number;
  readonly now?: () => number;
  /** Longest gap between reads of an alert-gated health block (StatusSchedule, HEALTH_PERIOD_MS). */
  readonly healthPeriodMs?: number;
}

type TrackPhase = "sending" | "unconfirmed" | "running" | "ended";

interface Track {
  readonly actionId: string;
  readonly axes: readonly string[];
  readonly goals: ReadonlyMap<number, number>;
  readonly start: Readonly<Record<string, number>>;
  readonly targets: Readonly<Record<string, number>>;
  readonly incarnation: string;
  phase: TrackPhase;
  confirmedAt: number;
  stillSamples: number;
  halted: boolean;
  record: ActionRecord;
  readonly ended: Promise<void>;
  end: () => void;
}

const MAX_TRACKS = 256;
const STATUS_ACTIONS = 16;

/**
 * The Transport over a Dynamixel 2.0 or Feetech STS servo bus. A bus has no
 * action ids and no device-side de-duplication: a goal written while a servo
 * moves simply replaces the old one. So:
 * - one sync write carries a motion's goals (with profile velocity and
 *   acceleration from `speed`), and it is never sent again;
 * - after it, the goal registers are read back (reads may be retried): not
 *   our target on any servo, none moved → positive evidence nothing was
 *   commanded (`refused`); our target → observed like any motion;
 * - a servo found with torque off that we had enabled lost power: the
 *   incarnation changes and motions on it become `unknown`;
 * - queryAction answers only from this process's own records: it can void
 *   nothing, never says "never heard of it" (it answers `undefined`), and says
 *   `moved: false` only from a read-back or a post-end sample.
 */
export class ServoBusTransport implements Transport {
  readonly kind: string;
  readonly #config: ArmConfig;
  readonly #link: ByteLink;
  readonly #protocol: BusProtocol;
  readonly #channel: BusChannel;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #servos: ServoState[];
  readonly #byName: ReadonlyMap<string, ServoState>;
  readonly #actuators: ReadonlyMap<string, Actuator>;
  readonly #tracks = new Map<string, Track>();
  readonly #listeners = new Set<(status: ArmStatus) => void>();
  readonly #session = randomBytes(4).toString("hex");
  readonly #readAttempts: number;
  readonly #arming: ServoArming;
  readonly #schedule: StatusSchedule;
  #latest: ArmStatus | undefined;
  readonly #linkState: LinkStateTracker;
  #loop: Promise<void> | undefined;
  #running = false;
  #closed: Promise<void> | undefined;
  /** Status loop cycles completed, for rate figures. */
  cycles = 0;

  constructor(config: ArmConfig, link: ByteLink, protocol: BusProtocol, options: ServoBusTransportOptions = {}) {
    this.kind = `bus:${protocol.name}`;
    this.#config = config;
    this.#link = link;
    this.#protocol = protocol;
    this.#log = (options.logger ?? pino({ level: "silent" })).child({ component: "bus-transport", protocol: protocol.name });
    this.#now = options.now ?? Date.now;
    this.#readAttempts = options.readAttempts ?? 3;
    const baud = options.baud ?? config.bus?.baud ?? 1_000_000;
    const axes = servoAxesOf(config);
    // Longest exchange: a status sync read of every servo; its wire time plus a margin for the OS and USB latency.
    const wireMs = ((axes.length * (protocol.statusOverhead + 40) + 40) * 10 * 1000) / baud;
    this.#channel = new BusChannel(link, protocol, { replyTimeoutMs: Math.ceil(wireMs + (options.replyMarginMs ?? 60)), quietAfterTimeoutMs: 20 });
    this.#arming = new ServoArming({ protocol, channel: this.#channel, log: this.#log, now: this.#now, readAttempts: this.#readAttempts });
    this.#schedule = new StatusSchedule(protocol.table, { now: this.#now, ...(options.healthPeriodMs === undefined ? {} : { periodMs: options.healthPeriodMs }) });
    this.#servos = axes.map((axis) => newServoState(axis, protocol.table.statusBlocks.length));
    this.#byName = new Map(this.#servos.map((s) => [s.axis.name, s]));
    this.#actuators = new Map(actuatorsOf(config).map((a) => [a.name, a]));
    this.#linkState = new LinkStateTracker({ now: this.#now, lastStatusAt: () => this.#latest?.stampMs, onListenerError: (err) => this.#log.error({ err }, "link state listener threw") });
  }

  /** Bus traffic so far (bench figures). */
  get traffic(): { bytesOut: number; bytesIn: number; timeouts: number } {
    return { bytesOut: this.#channel.bytesOut, bytesIn: this.#channel.bytesIn, timeouts: this.#channel.timeouts };
  }

  /** Status-loop reads of each status block so far (bench: the wire bytes a cycle really carries). */
  get statusBlockReads(): readonly number[] {
    return [...this.#schedule.reads];
  }

  armIncarnation(): string {
    return `${this.#session}:${this.#servos.reduce((n, s) => n + s.powerLosses, 0)}`;
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind });
    await this.#link.open(signal);
    const ids = this.#servos.map((s) => s.axis.id);
    let missing = ids;
    for (let attempt = 0; attempt < 5 && missing.length > 0 && !signal?.aborted; attempt++) {
      await this.#readStatus();
      missing = this.#servos.filter((s) => s.stampMs === 0 || s.blockStamps.some((t) => t === 0)).map((s) => s.axis.id);
    }
    if (missing.length > 0) {
      this.#linkState.set("down", { detail: `no answer from servo id(s) ${missing.join(", ")} on ${this.#link.url}` });
      throw new ArmbridgeError("ARMB_ERR_DEVICE_MISMATCH", { detail: `no answer from servo id(s) ${missing.join(", ")} on ${this.#link.url}` });
    }
    for (const s of this.#servos) await this.#arming.arm(s);
    this.#publish();
    this.#running = true;
    this.#linkState.set("connected");
    this.#loop = this.#statusLoop();
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#running = false;
      this.#linkState.set("down", { detail: "the transport is closed" });
      await this.#loop;
      for (const t of this.#tracks.values()) t.end();
      this.#channel.dispose();
      this.#listeners.clear();
      await this.#link.close();
    })();
    return this.#closed;
  }

  latestStatus(): ArmStatus | undefined {
    return this.#latest;
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- status loop ----------------------------------------------------------

  /**
   * Back-to-back status reads. The next read goes on the wire as soon as the
   * last reply of this one is in — still one request on the bus at a time —
   * and this cycle is judged and published while it travels: the host's work
   * hides inside the wire time instead of adding to every cycle.
   */
  async #statusLoop(): Promise<void> {
    let reading = this.#readCycle();
    while (this.#running) {
      await reading;
      if (!this.#running) break;
      this.cycles++;
      reading = this.#readCycle();
      this.#afterRead();
      // Yield to I/O and timers (the bus is busy with the next read meanwhile).
      await new Promise((r) => setImmediate(r));
    }
    await reading;
  }

  /** Every status block of every servo (opening, re-arming, recovery, a motion's read-back). */
  async #readStatus(): Promise<void> {
    for (const b of this.#protocol.table.statusBlocks.keys()) await this.#readBlock(b);
  }

  /**
   * One status-loop cycle: the every-cycle blocks, then the health block when
   * the schedule says so — in the same cycle when a reply's alert bit is set,
   * a servo missed a reply or a motion's servos have come to rest.
   */
  async #readCycle(): Promise<void> {
    const health = this.#schedule.healthBlock;
    for (const b of this.#schedule.everyCycle) {
      const { replies } = await this.#readBlock(b);
      this.#schedule.reads[b] = (this.#schedule.reads[b] ?? 0) + 1;
      if (health === undefined) continue;
      if (replies.size < this.#servos.length) this.#schedule.want();
      for (const r of replies.values()) if (this.#protocol.hardwareAlert(r.error)) this.#schedule.want();
      if (this.#motionAtRest()) this.#schedule.want();
    }
    if (health !== undefined && this.#schedule.healthDue()) {
      const { replies, at } = await this.#readBlock(health);
      this.#schedule.reads[health] = (this.#schedule.reads[health] ?? 0) + 1;
      this.#schedule.healthRead(at, replies.size === this.#servos.length);
    }
  }

  async #readBlock(b: number): Promise<{ replies: Map<number, StatusReply>; at: number }> {
    const ids = this.#servos.map((s) => s.axis.id);
    const block = this.#protocol.table.statusBlocks[b]!;
    const sentAt = this.#now();
    const replies = await this.#channel.exchange(this.#protocol.syncRead(block.address, block.size, ids), ids, "status", block.size);
    const at = this.#now();
    for (const s of this.#servos) {
      const r = replies.get(s.axis.id);
      if (!r) continue;
      s.memory.set(r.data, block.address);
      s.blockStamps[b] = at;
      s.stampMs = this.#schedule.sampleStamp(s);
    }
    return { replies, at: sentAt };
  }

  /** Some running motion's servos all read still: its verdict is near and needs fresh torque readings. */
  #motionAtRest(): boolean {
    const moving = this.#protocol.table.moving;
    for (const track of this.#tracks.values()) {
      if (track.phase === "running" && track.axes.every((a) => this.#get(this.#byName.get(a)!, moving) === 0)) return true;
    }
    return false;
  }

  #afterRead(): void {
    const t = this.#protocol.table;
    const torqueBlock = t.statusBlocks.findIndex((b) => b.address <= t.torqueEnable.address && t.torqueEnable.address < b.address + b.size);
    for (const s of this.#servos) {
      if (this.#get(s, t.hardwareError) !== 0) this.#arming.noteTrip(s);
      // Only a torque reading taken after we armed it counts (a read that timed out leaves an old one).
      if (s.armed && (s.blockStamps[torqueBlock] ?? 0) > s.armedAt && this.#get(s, t.torqueEnable) === 0) {
        s.armed = false;
        if (!s.tripped) {
          // Torque off that we did not ask for, with no error: the servo lost power and came back.
          s.powerLosses++;
          this.#log.warn({ servo: s.axis.id, joint: s.axis.name, incarnation: this.armIncarnation() }, "servo came back with torque off: power loss; motions on it are unknown");
          this.#loseTracksOn(s, `servo ${s.axis.id} (${s.axis.name}) lost power during the motion`);
        }
      }
      // A servo that came back from a power loss holds where it is again (that cannot move the arm);
      // one that tripped stays off until recoverServos: the cause is at the arm, not on the bus.
      if (!s.armed && !s.arming && !s.tripped) {
        s.arming = true;
        // A fresh read first, so the hold is not a stale position.
        void this.#readStatus()
          .then(() => this.#arming.arm(s))
          .finally(() => (s.arming = false));
      }
    }
    for (const track of this.#tracks.values()) if (track.phase === "running") this.#judge(track);
    this.#publish();
    this.#judgeLink();
  }

  linkState(): LinkState {
    return this.#linkState.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.#linkState.subscribe(listener);
  }

  /** Connected while every servo answered within stale_after_ms; the status loop itself is the retry. */
  #judgeLink(): void {
    if (!this.#running) return;
    const at = this.#now();
    const silent = this.#servos.filter((s) => at - s.stampMs > this.#config.staleAfterMs).map((s) => s.axis.id);
    if (silent.length === 0) this.#linkState.set("connected");
    else this.#linkState.set("reconnecting", { detail: `no answer from servo id(s) ${silent.join(", ")} on ${this.#link.url}` });
  }

  #publish(): void {
    const t = this.#protocol.table;
    const axes: Record<string, AxisState> = {};
    const faults: string[] = [];
    let stamp = Infinity;
    for (const s of this.#servos) {
      const position = positionOf(s.axis, this.#get(s, t.presentPosition));
      const velocity = (this.#get(s, t.presentVelocity) * t.presentVelocityUnit) / s.axis.countsPerUnit;
      axes[s.axis.name] = { position, velocity, moving: this.#get(s, t.moving) !== 0 };
      stamp = Math.min(stamp, s.stampMs);
      const hw = this.#get(s, t.hardwareError);
      if (hw !== 0) faults.push(`servo ${s.axis.id} (${s.axis.name}): ${hardwareErrorNames(t, hw).join(", ")}`);
      else if (s.tripped) faults.push(`servo ${s.axis.id} (${s.axis.name}): shut down on ${s.tripped}, torque off until recovered`);
      else if (!s.armed) faults.push(`servo ${s.axis.id} (${s.axis.name}): torque off`);
      if (s.gripLimitProblem) faults.push(`servo ${s.axis.id} (${s.axis.name}): ${s.gripLimitProblem}`);
    }
    const actions = [...this.#tracks.values()].slice(-STATUS_ACTIONS).map((tr) => tr.record);
    const status: ArmStatus = { stampMs: Number.isFinite(stamp) ? stamp : 0, axes, faults, actions };
    this.#latest = status;
    for (const l of [...this.#listeners]) {
      try {
        l(status);
      } catch (error) {
        this.#log.warn({ err: error }, "status listener threw");
      }
    }
  }

  #get(s: ServoState, reg: Register): number {
    return decodeRegister(reg, s.memory, reg.address) ?? 0;
  }

  // ---- motions --------------------------------------------------------------

  async runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    if (this.#closed) return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
    // The same id again is the same motion: wait on it, never write its goals twice.
    const existing = this.#tracks.get(command.actionId);
    if (existing) return this.#await(existing, signal);
    const invalid = this.#validate(command);
    if (invalid) return invalid;
    const status = this.#latest;
    if (!status || this.#now() - status.stampMs > this.#config.staleAfterMs) {
      return { kind: "refused", reason: "no fresh servo readings to plan from", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: this.kind }) };
    }
    const t = this.#protocol.table;
    const entries: { id: number; data: Uint8Array }[] = [];
    const goals = new Map<number, number>();
    const start: Record<string, number> = {};
    for (const [axis, target] of Object.entries(command.targets)) {
      const s = this.#byName.get(axis)!;
      const a = this.#actuators.get(axis)!;
      if (s.tripped) {
        const error = new ArmbridgeError("ARMB_ERR_SERVO_TRIPPED", { servo: s.axis.id, joint: axis, errors: s.tripped });
        return { kind: "refused", reason: error.message, error };
      }
      if (!s.armed) return this.#refused(command.actionId, `servo ${s.axis.id} (${axis}) has torque off`);
      const goal = Math.round(countOf(s.axis, target));
      const perUnit = Math.abs(s.axis.countsPerUnit);
      const velocity = clampUnits((command.speed * a.maxVelocity * perUnit) / t.profileVelocityUnit, t.maxProfileVelocityUnits);
      const acceleration = clampUnits((a.maxAcceleration * perUnit) / t.profileAccelerationUnit, t.maxProfileAccelerationUnits);
      entries.push({ id: s.axis.id, data: t.encodeMotion(goal, velocity, acceleration) });
      goals.set(s.axis.id, goal);
      start[axis] = status.axes[axis]?.position ?? Number.NaN;
    }
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const track: Track = {
      actionId: command.actionId,
      axes: Object.keys(command.targets),
      goals,
      start,
      targets: command.targets,
      incarnation: this.armIncarnation(),
      phase: "sending",
      confirmedAt: Infinity,
      stillSamples: 0,
      halted: false,
      record: { actionId: command.actionId, state: "executing", moved: undefined },
      ended,
      end,
    };
    this.#remember(track);
    const log = this.#log.child({ action_id: command.actionId });
    // Once, and never again: a bus has no de-duplication, so a second write could be a second motion.
    await this.#channel.exchange(this.#protocol.syncWrite(t.motionBlock.address, t.motionBlock.size, entries), [], "command");
    log.info({ goals: Object.fromEntries(goals) }, "goals written (sync write, not repeated)");
    track.phase = "unconfirmed";
    const verdict = await this.#confirm(track);
    if (verdict === "not_commanded") {
      return { kind: "refused", reason: track.record.detail ?? "goal registers do not hold our targets", error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId: command.actionId, reason: track.record.detail ?? "goal not taken" }) };
    }
    if (verdict === "no_answer") {
      return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", { op: "goal read-back", ms: this.#channel.options.replyTimeoutMs * this.#readAttempts }) };
    }
    return this.#await(track, signal);
  }

  /**
   * Reads the goal registers back after the one write. Reads may be retried.
   * `not_commanded` only when no servo holds our goal, none moved and none lost
   * power: then the write never landed and never will (a bus has no queue).
   */
  async #confirm(track: Track): Promise<"commanded" | "not_commanded" | "no_answer" | "lost"> {
    const t = this.#protocol.table;
    const ids = [...track.goals.keys()];
    const got = new Map<number, number>();
    for (let attempt = 0; attempt < this.#readAttempts && got.size < ids.length; attempt++) {
      const missing = ids.filter((id) => !got.has(id));
      const replies = await this.#channel.exchange(this.#protocol.syncRead(t.goalPosition.address, t.goalPosition.size, missing), missing, "command", t.goalPosition.size);
      for (const [id, r] of replies) got.set(id, decodeRegister(t.goalPosition, r.data) ?? Number.NaN);
    }
    if (track.phase !== "unconfirmed") return track.phase === "ended" ? "lost" : "commanded";
    if (track.incarnation !== this.armIncarnation()) return "lost";
    if (got.size < ids.length) return "no_answer";
    const ours = ids.filter((id) => got.get(id) === track.goals.get(id));
    if (ours.length === 0) {
      // Still-ness from a sample read after the read-back: nothing moved.
      await this.#readStatus();
      const moved = this.#movedFromStart(track);
      if (moved !== true && track.incarnation === this.armIncarnation()) {
        track.phase = "ended";
        track.record = { actionId: track.actionId, state: "rejected", moved: false, detail: `goal registers read back ${ids.map((id) => `${id}:${got.get(id)}`).join(", ")}, not our targets: the goal write was lost` };
        track.end();
        return "not_commanded";
      }
    }
    track.phase = "running";
    track.confirmedAt = this.#now();
    if (ours.length < ids.length) track.record = { ...track.record, detail: `servo(s) ${ids.filter((id) => !ours.includes(id)).join(", ")} did not take the goal` };
    return "commanded";
  }

  async #await(track: Track, signal: AbortSignal): Promise<MotionEnd> {
    if (track.phase === "unconfirmed") {
      const v = await this.#confirm(track);
      if (v === "no_answer") return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_DEVICE_TIMEOUT", { op: "goal read-back", ms: this.#channel.options.replyTimeoutMs }) };
    }
    if (track.phase !== "ended") {
      const aborted = new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await Promise.race([track.ended, aborted]);
    }
    if (track.phase !== "ended") return this.#closed ? { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) } : { kind: "wait_ended" };
    if (track.record.state === "unknown") {
      return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_DEVICE_REBOOTED", { from: track.incarnation, to: this.armIncarnation() }) };
    }
    if (track.record.state === "rejected") return { kind: "refused", reason: track.record.detail ?? "rejected", error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId: track.actionId, reason: track.record.detail ?? "" }) };
    return { kind: "ended", record: track.record };
  }

  /** Judges a running motion on a status read after its goals were confirmed. */
  #judge(track: Track): void {
    const t = this.#protocol.table;
    const servos = track.axes.map((a) => this.#byName.get(a)!);
    if (servos.some((s) => s.stampMs <= track.confirmedAt)) return;
    // A shut-down servo ends the motion as faulted; whether it moved is read from the pose (#finish).
    const hw = servos.filter((s) => s.tripped !== undefined);
    if (hw.length > 0) {
      this.#finish(track, "faulted", hw.map((s) => `servo ${s.axis.id} (${s.axis.name}): ${s.tripped ?? ""}`).join("; "));
      return;
    }
    if (servos.some((s) => this.#get(s, t.moving) !== 0)) {
      track.stillSamples = 0;
      return;
    }
    // At rest — reached, stalled or stopped — or did a servo lose power? Only a torque
    // reading taken with this sample tells (a power-cycled servo reads still too).
    if (!servos.every((s) => this.#schedule.healthFresh(s))) {
      this.#schedule.want();
      return;
    }
    const atTarget = track.axes.every((axis) => {
      const s = this.#byName.get(axis)!;
      const tol = this.#actuators.get(axis)?.tolerance ?? this.#config.tolerances.position;
      return Math.abs(positionOf(s.axis, this.#get(s, t.presentPosition)) - (track.targets[axis] ?? Number.NaN)) <= tol;
    });
    if (atTarget) {
      this.#finish(track, "reached", "");
      return;
    }
    // A servo may report still for a sample before its profile starts: ask for a second still sample.
    track.stillSamples++;
    if (track.stillSamples < 3) return;
    this.#finish(track, track.halted ? "stopped" : "stalled", track.halted ? "halted" : "servo(s) came to rest short of the goal");
  }

  #finish(track: Track, state: ActionState, detail: string): void {
    if (track.phase === "ended") return;
    track.phase = "ended";
    const moved = state === "reached" ? true : this.#movedFromStart(track);
    track.record = { actionId: track.actionId, state, moved, ...(detail ? { detail } : track.record.detail ? { detail: track.record.detail } : {}) };
    this.#log.info({ action_id: track.actionId, state, moved }, "motion ended");
    track.end();
  }

  /** Displaced beyond tolerance → true; every axis still and in place (read now) → false; else unknown. */
  #movedFromStart(track: Track): boolean | undefined {
    const t = this.#protocol.table;
    let still = true;
    for (const axis of track.axes) {
      const s = this.#byName.get(axis)!;
      const from = track.start[axis];
      if (from === undefined || Number.isNaN(from) || s.stampMs === 0) return undefined;
      const tol = this.#actuators.get(axis)?.tolerance ?? this.#config.tolerances.position;
      if (Math.abs(positionOf(s.axis, this.#get(s, t.presentPosition)) - from) > tol) return true;
      if (this.#get(s, t.moving) !== 0) still = false;
    }
    return still ? false : undefined;
  }

  #loseTracksOn(s: ServoState, why: string): void {
    for (const track of this.#tracks.values()) {
      if (track.phase === "ended" || !track.axes.includes(s.axis.name)) continue;
      track.phase = "ended";
      track.record = { actionId: track.actionId, state: "unknown", moved: undefined, detail: why };
      track.end();
    }
  }

  async queryAction(actionId: string, options: { voidIfUnknown: boolean; signal: AbortSignal }): Promise<ActionRecord | undefined> {
    // Nothing can be voided on a bus, and a servo keeps no record of ids: an id
    // this process did not send is "cannot be asked" (undefined), never "unknown, not moved".
    const track = this.#tracks.get(actionId);
    if (!track) return undefined;
    if (track.phase === "unconfirmed" && !options.signal.aborted) await this.#confirm(track);
    return track.phase === "unconfirmed" ? undefined : track.record;
  }

  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    if (this.#closed) return { halted: false, status: this.#latest, error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
    const names = options.axes ?? [...this.#byName.keys()];
    const servos = names.map((n) => this.#byName.get(n)).filter((s): s is ServoState => s !== undefined && s.armed);
    for (const track of this.#tracks.values()) if (track.phase !== "ended" && track.axes.some((a) => names.includes(a))) track.halted = true;
    const t = this.#protocol.table;
    const ids = servos.map((s) => s.axis.id);
    if (ids.length > 0) {
      // Hold where each servo is now: a fresh read, then one goal write at those positions.
      const replies = await this.#channel.exchange(this.#protocol.syncRead(t.presentPosition.address, t.presentPosition.size, ids), ids, "command", t.presentPosition.size);
      const entries = servos.map((s) => {
        const r = replies.get(s.axis.id);
        const present = r ? (decodeRegister(t.presentPosition, r.data) ?? this.#get(s, t.presentPosition)) : this.#get(s, t.presentPosition);
        return { id: s.axis.id, data: encodeRegister(t.goalPosition, present) };
      });
      await this.#channel.exchange(this.#protocol.syncWrite(t.goalPosition.address, t.goalPosition.size, entries), [], "command");
    }
    const still = await new Promise<ArmStatus | undefined>((resolve) => {
      const check = (s: ArmStatus): boolean => names.every((n) => s.axes[n] && !s.axes[n].moving);
      const done = (s: ArmStatus | undefined): void => {
        unsubscribe();
        options.signal.removeEventListener("abort", onAbort);
        resolve(s);
      };
      const onAbort = (): void => done(undefined);
      let seen = 0;
      const unsubscribe = this.onStatus((s) => {
        if (++seen >= 2 && check(s)) done(s);
      });
      if (options.signal.aborted) done(undefined);
      else options.signal.addEventListener("abort", onAbort, { once: true });
    });
    return { halted: still !== undefined, status: still ?? this.#latest };
  }

  /**
   * The operator's recovery of tripped servos, one at a time:
   * - Dynamixel X: REBOOT, the only way out of a shutdown (e-Manual, X-series
   *   "Shutdown": Torque Enable is cleared to 0 and "a REBOOT is the only
   *   method to reset Torque Enable to 1"; ROBOTIS-GIT/emanual
   *   _includes/en/dxl/x/shutdown.md @ 53247968642942cbbdb3fb52e47d5aef4269267a).
   *   The servo answers, restarts with its RAM at power-on values (torque
   *   off, goal anywhere), and is read until it answers again.
   * - Feetech STS: no reboot; its Status bits follow the condition, so the
   *   error must read clear (the load is gone) before torque goes back on.
   * Then the usual arming: goal := present position, then torque on, so the
   * horn does not jump. Not automatic, and never while a motion on the servo
   * is still being judged.
   */
  async recoverServos(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<readonly ServoRecovery[]> {
    const t = this.#protocol.table;
    const names = options.axes ?? this.#servos.filter((s) => s.tripped || !s.armed).map((s) => s.axis.name);
    const out: ServoRecovery[] = [];
    for (const name of names) {
      const s = this.#byName.get(name);
      if (!s) {
        out.push({ axis: name, outcome: "no_answer", detail: `no servo drives an axis named ${JSON.stringify(name)}` });
        continue;
      }
      const was = s.tripped;
      const busy = [...this.#tracks.values()].some((tr) => tr.phase !== "ended" && tr.axes.includes(name));
      if (this.#closed || options.signal.aborted) out.push({ axis: name, outcome: "no_answer", detail: "the transport is closing or the request was aborted" });
      else if (busy) out.push({ axis: name, outcome: "busy", detail: "a motion on it is still being judged" });
      else if (s.armed && !was && this.#get(s, t.hardwareError) === 0) out.push({ axis: name, outcome: "not_needed", detail: "torque on, no hardware error" });
      else out.push({ axis: name, ...(await this.#arming.recover(s, options.signal, () => this.#readStatus())) });
    }
    this.#publish();
    return out;
  }

  #validate(command: MotionCommand): MotionEnd | undefined {
    if (!(command.speed > 0 && command.speed <= 1)) return this.#refused(command.actionId, `speed ${command.speed} is not in (0, 1]`);
    const entries = Object.entries(command.targets);
    if (entries.length === 0) return this.#refused(command.actionId, "no targets");
    for (const [axis, value] of entries) {
      const a = this.#actuators.get(axis);
      if (!a || !this.#byName.has(axis)) return this.#refused(command.actionId, `unknown axis ${axis}`);
      if (!Number.isFinite(value) || value < a.min || value > a.max) return this.#refused(command.actionId, `${axis} target ${value} is outside [${a.min}, ${a.max}]`);
    }
    return undefined;
  }

  #refused(actionId: string, reason: string): MotionEnd {
    return { kind: "refused", reason, error: new ArmbridgeError("ARMB_ERR_MOTION_REFUSED", { actionId, reason }) };
  }

  #remember(track: Track): void {
    this.#tracks.set(track.actionId, track);
    if (this.#tracks.size <= MAX_TRACKS) return;
    for (const [id, t] of this.#tracks) {
      if (this.#tracks.size <= MAX_TRACKS) break;
      if (t.phase === "ended") this.#tracks.delete(id);
    }
  }
}

function clampUnits(units: number, max: number): number {
  return Math.min(max, Math.max(1, Math.round(units)));
}
