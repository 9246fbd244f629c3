import { randomBytes } from "node:crypto";
import { pino, type Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import type { ByteLink } from "../link/ByteLink.js";
import type { ServoBusTransportOptions } from "./ServoBusTransportOptions.js";
import { LinkLifecycle } from "../link/LinkLifecycle.js";
import type {
  ActionRecord,
  ArmIdentity,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  MotionTimingSource,
  Transport,
} from "../Transport.js";
import type { WireNumbers } from "../WireNumbers.js";
import { nextStatusOf } from "../nextStatusOf.js";
import { BusChannel } from "./BusChannel.js";
import { BusMotions } from "./BusMotions.js";
import { readModelNumbers, reconnectBus, type BusReturnContext } from "./BusReturn.js";
import { BusServoCare } from "./BusServoCare.js";
import { BusServos } from "./BusServos.js";
import { BusStatusLoop } from "./BusStatusLoop.js";
import { haltBusAxes, type BusHaltContext } from "./haltBusAxes.js";
import { judgeServoTorque, silentServos } from "./judgeBusCycle.js";
import type { BusProtocol } from "../../protocol/bus/index.js";
import { sendBusMotion, type BusMotionContext } from "./sendBusMotion.js";
import { ServoArming } from "./ServoArming.js";
import type { ServoState } from "./ServoState.js";
import { StatusSchedule } from "./StatusSchedule.js";

/**
 * The Transport over a Dynamixel 2.0 or Feetech STS servo bus. A bus has no
 * action ids and no device-side de-duplication: a goal written while a servo
 * moves simply replaces the old one. The jobs live beside it:
 * - BusStatusLoop: the back-to-back status reads;
 * - BusMotions: what was written, the read-back, and the judgement of each
 *   motion from the status cycle (queryAction answers only from these: it can
 *   void nothing, never says "never heard of it");
 * - sendBusMotion: the one goal write per motion, never repeated;
 * - haltBusAxes: hold where each servo is;
 * - ServoArming: torque on without moving, trips, the operator's recovery;
 * - LinkLifecycle + reconnectBus: a bus that stops answering (a bumped USB
 *   cable, a killed TCP bridge, a browned-out servo supply) is reopened,
 *   pinged, checked to be the same servos, read, and armed again without
 *   moving; a servo that came back with torque off lost power (a new
 *   incarnation): the motions on it are cut short, never re-sent.
 */
export class ServoBusTransport implements Transport {
  readonly kind: string;
  readonly wire: WireNumbers;
  readonly servos: BusServoCare;
  readonly #config: ArmConfig;
  readonly #link: ByteLink;
  readonly #protocol: BusProtocol;
  readonly #channel: BusChannel;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #servos: BusServos;
  readonly #listeners = new Set<(status: ArmStatus) => void>();
  readonly #session = randomBytes(4).toString("hex");
  readonly #arming: ServoArming;
  readonly #schedule: StatusSchedule;
  readonly #loop: BusStatusLoop;
  readonly #motions: BusMotions;
  readonly #lifecycle: LinkLifecycle;
  readonly #unsubscribeLink: () => void;
  /** Aborted when the link is lost: the waits of motions under way end then (link_error). */
  #interrupt = new AbortController();
  readonly #models = new Map<number, number>();
  #latest: ArmStatus | undefined;
  #closed: Promise<void> | undefined;

  constructor(config: ArmConfig, link: ByteLink, protocol: BusProtocol, options: ServoBusTransportOptions = {}) {
    this.kind = `bus:${protocol.name}`;
    this.#config = config;
    this.#link = link;
    this.#protocol = protocol;
    this.#log = (options.logger ?? pino({ level: "silent" })).child({
      component: "bus-transport",
      protocol: protocol.name,
    });
    this.#now = options.now ?? Date.now;
    const readAttempts = options.readAttempts ?? 3;
    const baud = options.baud ?? config.bus?.baud ?? 1_000_000;
    this.#servos = new BusServos(config, protocol);
    this.wire = this.#servos.wire;
    // Longest exchange: a status sync read of every servo; its wire time plus a margin for the OS and USB latency.
    const wireMs = ((this.#servos.list.length * (protocol.statusOverhead + 40) + 40) * 10 * 1000) / baud;
    this.#channel = new BusChannel(link, protocol, {
      replyTimeoutMs: Math.ceil(wireMs + (options.replyMarginMs ?? 60)),
      lateMs: 20,
    });
    this.#arming = new ServoArming({ protocol, channel: this.#channel, log: this.#log, now: this.#now, readAttempts });
    this.#schedule = new StatusSchedule(protocol.table, {
      now: this.#now,
      ...(options.healthPeriodMs === undefined ? {} : { periodMs: options.healthPeriodMs }),
    });
    this.#motions = new BusMotions({
      protocol,
      channel: this.#channel,
      servos: this.#servos,
      schedule: this.#schedule,
      log: this.#log,
      now: this.#now,
      readAttempts,
      incarnation: () => this.identity.incarnation(),
      readAll: () => this.#loop.readAll(),
      transportKind: this.kind,
    });
    this.#loop = new BusStatusLoop({
      protocol,
      channel: this.#channel,
      servos: this.#servos,
      schedule: this.#schedule,
      now: this.#now,
      motionAtRest: () => this.#motions.atRest(),
      onCycle: () => this.#afterCycle(),
      ...(options.conditionPeriodMs === undefined ? {} : { conditionPeriodMs: options.conditionPeriodMs }),
    });
    this.servos = this.#createServoCare();
    this.#lifecycle = this.#createLifecycle(options, readAttempts);
    // undefined: closed by us (close(), or an attempt starting afresh).
    this.#unsubscribeLink = link.onClose((error) => {
      if (error !== undefined) this.#lose(`link ${link.url} lost: ${error.message}`);
    });
  }

  #createServoCare(): BusServoCare {
    return new BusServoCare({
      protocol: this.#protocol,
      servos: this.#servos,
      motions: this.#motions,
      arming: this.#arming,
      loop: this.#loop,
      models: this.#models,
      linkState: () => this.#lifecycle.state,
      closed: () => this.#closed !== undefined,
      afterCycle: () => this.#afterCycle(),
      publish: () => this.#publish(),
    });
  }

  /** The link's states, and the return of a lost bus: reopened, pinged, the same servos, read, armed again. */
  #createLifecycle(options: ServoBusTransportOptions, readAttempts: number): LinkLifecycle {
    const returning: BusReturnContext = {
      link: this.#link,
      protocol: this.#protocol,
      channel: this.#channel,
      servos: this.#servos,
      loop: this.#loop,
      arming: this.#arming,
      log: this.#log,
      now: this.#now,
      readAttempts,
      models: this.#models,
      notePowerLoss: (s, why) => this.#notePowerLoss(s, why),
    };
    return new LinkLifecycle({
      describe: this.#link.url,
      logger: this.#log,
      now: this.#now,
      backoff: options.backoff,
      reconnect: options.reconnect,
      attemptTimeoutMs: options.attemptTimeoutMs ?? 3000,
      lastStatusAt: () => this.#latest?.stampMs,
      incarnation: () => this.identity.incarnation(),
      inFlight: () => this.#motions.inFlight(),
      attempt: async (signal) => {
        const found = await reconnectBus(returning, signal);
        this.#publish();
        return found;
      },
    });
  }

  /** Bus traffic so far (bench figures). */
  get traffic(): { bytesOut: number; bytesIn: number; timeouts: number } {
    return { bytesOut: this.#channel.bytesOut, bytesIn: this.#channel.bytesIn, timeouts: this.#channel.timeouts };
  }

  /** Status-loop reads of each status block so far (bench: the wire bytes a cycle really carries). */
  get statusBlockReads(): readonly number[] {
    return [...this.#schedule.reads];
  }

  /** Condition reads so far (temperature and voltage where not in the status blocks; the servos' own limits): bench figures. */
  get conditionBlockReads(): { readonly present: number; readonly limits: number } {
    return { ...this.#loop.conditionBlockReads };
  }

  /** Status loop cycles completed, for rate figures. */
  get cycles(): number {
    return this.#loop.cycles;
  }

  /**
   * Each servo runs its own profile (Profile_Velocity / Goal_Speed from
   * speed × max_velocity, at max_acceleration) with no common duration, and
   * cannot be told to move slower than one velocity unit.
   */
  readonly timing: MotionTimingSource = {
    motionTiming: () => {
      const t = this.#protocol.table;
      const minVelocity: Record<string, number> = {};
      for (const s of this.#servos.list)
        minVelocity[s.axis.name] = t.profileVelocityUnit / Math.abs(s.axis.countsPerUnit);
      return { kind: "independent", minVelocity };
    },
  };

  readonly identity = {
    /** Servos name no arm: their ids and models are checked on every return, not recorded. */
    arm: (): string | undefined => undefined,
    /** This process's session with the bus and the power losses its servos have had: each one is a new incarnation. */
    incarnation: (): string => `${this.#session}:${this.#servos.list.reduce((n, s) => n + s.powerLosses, 0)}`,
  } satisfies ArmIdentity;

  async open(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind });
    this.#lifecycle.down(`opening ${this.#link.url}`);
    await this.#link.open(signal);
    let missing: number[] = this.#servos.ids;
    for (let attempt = 0; attempt < 5 && missing.length > 0 && !signal?.aborted; attempt++) {
      await this.#loop.readAll();
      missing = this.#servos.list
        .filter((s) => s.stampMs === 0 || s.blockStamps.some((t) => t === 0))
        .map((s) => s.axis.id);
    }
    if (missing.length > 0) {
      const detail = `no answer from servo id(s) ${missing.join(", ")} on ${this.#link.url}`;
      this.#lifecycle.down(detail);
      throw new ArmbridgeError("ARMB_ERR_DEVICE_MISMATCH", { detail });
    }
    // Who this arm is, for every return: the same ids must answer with the same models.
    for (const [id, model] of await readModelNumbers({
      protocol: this.#protocol,
      channel: this.#channel,
      servos: this.#servos,
      readAttempts: 3,
      link: this.#link,
    }))
      this.#models.set(id, model);
    for (const s of this.#servos.list) await this.#arming.arm(s);
    // Arming takes a few exchanges per servo: the status published at open is read after it, not before.
    await this.#loop.readAll();
    await this.#loop.readCondition();
    this.#publish();
    this.#lifecycle.opened();
    this.#loop.start();
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.#lifecycle.close();
      await this.#loop.stop();
      this.#interrupt.abort();
      this.#motions.endAll();
      this.#unsubscribeLink();
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

  linkState(): LinkState {
    return this.#lifecycle.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.#lifecycle.subscribe(listener);
  }

  /** The link dropped, or every servo went silent: stop reading, end the waits, try to get it back. */
  #lose(reason: string): void {
    if (this.#closed || this.#lifecycle.state !== "connected") return;
    // Told first, so the loss records what was in flight.
    this.#lifecycle.lost(reason);
    void this.#loop.stop();
    this.#interrupt.abort();
    this.#interrupt = new AbortController();
  }

  #notePowerLoss(s: ServoState, why: string): void {
    s.armed = false;
    s.powerLosses++;
    this.#log.warn(
      { servo: s.axis.id, joint: s.axis.name, incarnation: this.identity.incarnation() },
      "servo came back with torque off: power loss; motions on it are unknown",
    );
    this.#motions.loseOn(s, why);
  }

  #afterCycle(): void {
    judgeServoTorque({
      protocol: this.#protocol,
      servos: this.#servos,
      arming: this.#arming,
      loop: this.#loop,
      motions: this.#motions,
      lifecycle: this.#lifecycle,
      notePowerLoss: (s, why) => this.#notePowerLoss(s, why),
    });
    this.#motions.judgeAll();
    this.#publish();
    this.#judgeSilence();
  }

  #judgeSilence(): void {
    const silent = silentServos(this.#servos.list, this.#now(), this.#loop.startedAt, this.#config.staleAfterMs);
    if (silent.length > 0)
      this.#lose(
        `no answer from servo id(s) ${silent.join(", ")} on ${this.#link.url} for more than ${this.#config.staleAfterMs} ms`,
      );
  }

  #publish(): void {
    const status = this.#servos.status(this.#motions.records());
    this.#latest = status;
    for (const l of [...this.#listeners]) {
      try {
        l(status);
      } catch (error) {
        this.#log.warn({ err: error }, "status listener threw");
      }
    }
  }

  #motionContext(): BusMotionContext & BusHaltContext {
    return {
      kind: this.kind,
      protocol: this.#protocol,
      channel: this.#channel,
      servos: this.#servos,
      motions: this.#motions,
      link: this.#lifecycle,
      log: this.#log,
      now: this.#now,
      staleAfterMs: this.#config.staleAfterMs,
      latest: () => this.#latest,
      nextStatus: (signal) => nextStatusOf(this, signal),
      onStatus: (listener) => this.onStatus(listener),
      interrupted: () => this.#interrupt.signal,
      closed: () => this.#closed !== undefined,
    };
  }

  async runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    return sendBusMotion(this.#motionContext(), command, signal);
  }

  async queryAction(
    actionId: string,
    options: { voidIfUnknown: boolean; signal: AbortSignal },
  ): Promise<ActionRecord | undefined> {
    // Nothing can be voided on a bus, and a servo keeps no record of ids: an id
    // this process did not send is "cannot be asked" (undefined), never "unknown, not moved".
    const track = this.#motions.get(actionId);
    if (!track) return undefined;
    if (track.phase === "unconfirmed" && !options.signal.aborted && this.#lifecycle.state === "connected")
      await this.#motions.confirm(track);
    return track.phase === "unconfirmed" ? undefined : track.record;
  }

  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    if (this.#closed)
      return {
        halted: false,
        status: this.#latest,
        error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }),
      };
    return haltBusAxes(this.#motionContext(), options);
  }
}
