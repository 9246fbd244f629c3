import type { Logger } from "pino";
import { ArmbridgeError } from "../../src/errors.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import {
  decodeRegister,
  encodeSimMount,
  SIM_MOUNT_BLOCK,
  type BusPacket,
  type BusProtocol,
  type PacketDecoder,
} from "../../src/protocol/bus/index.js";
import { countOf, positionOf } from "../../src/protocol/bus/servoAxes.js";
import type { Clock } from "../Clock.js";
import type { EffectsSink, Outcome } from "../EffectsLog.js";
import type { FaultPlan } from "../faults.js";
import type { ByteStreamEndpoint } from "../links/DeviceLink.js";
import { layOutServos, type BusLayoutFile } from "./BusLayout.js";
import { mergeCollidingReplies } from "./mergeCollidingReplies.js";
import { servoProtection } from "./servoProtection.js";
import { SimServo } from "./SimServo.js";
import { answersReads, answersWrites } from "./statusReturnLevel.js";

export interface BusSimulatorOptions {
  readonly config: ArmConfig;
  readonly protocol: BusProtocol;
  readonly clock: Clock;
  readonly faults: FaultPlan;
  readonly effects: EffectsSink;
  readonly logger: Logger;
  /** Every reply leaves this much later: a late status packet. */
  readonly ackDelayMs: number;
  /** Emulate the bus at this many baud (10 bits per byte, half duplex); undefined = as fast as the link goes. */
  readonly baud?: number | undefined;
  /** A servo that lost power is deaf this long. */
  readonly bootMs?: number;
  /** Axes whose next motion stalls half-way, once each (a fault on cue, as the serial sim's --stall-joint). */
  readonly stallJoints?: readonly string[];
  /** Axes whose next motion loses power half-way, once each: the whole bus's servo supply drops (--power-loss-joint). */
  readonly powerLossJoints?: readonly string[];
  /** How long a power loss on cue lasts (ms). Default 500. */
  readonly powerLossMs?: number;
  /** Servos that heat up (HEAT_RATE_C_PER_S while their torque is on) until they trip on overheating (--heat-joint). */
  readonly heatJoints?: readonly string[];
  /** Start temperatures (°C) by axis (--servo-temperature). */
  readonly servoTemperatures?: Readonly<Record<string, number>>;
  /** The servo supply (V) every servo reads, when not each model's nominal (--supply-voltage). */
  readonly supplyVoltage?: number;
  /** The model number every servo reports (default: the table's first); another one makes another arm. */
  readonly modelNumber?: number;
  /** What is on the bus, when it is not the config's servos mounted as the config says (BusLayout.ts). */
  readonly layout?: BusLayoutFile | undefined;
}

interface Motion {
  readonly key: string;
  readonly servos: Set<SimServo>;
  readonly joints: readonly string[];
  readonly from: Record<string, number>;
  readonly to: Record<string, number>;
  outcome: Outcome;
  detail: string;
  /** A seeded stall or power loss part-way, cleared when the motion ends. */
  faultTimer: { id: number } | undefined;
}

const OUTCOME_RANK: Readonly<Record<Outcome, number>> = { reached: 0, stopped: 1, stalled: 2, faulted: 3 };
/** A goal this close to where a moving servo is (counts) is a hold (a stop), not a new motion. */
const HOLD_COUNTS = 200;
/** How long a simulated overload at start keeps a Feetech servo's Status bit set (the load goes away). */
const OVERLOAD_CLEARS_MS = 200;
/** Dynamixel 2.0 status error 7: a write to EEPROM with torque on (among others). */
const ACCESS_ERROR = 7;
/** Overload is bit 5 of both families' hardware-error register. */
const OVERLOAD_BIT = 1 << 5;
/** How fast a servo on --heat-joint warms while it holds torque (°C/s), and how often that is applied. */
const HEAT_RATE_C_PER_S = 1;
const HEAT_TICK_MS = 1000;
/** A UART decodes a byte sent within about 3 % of its own rate (e-Manual: "less than 3% of the baud rate error margin will not affect UART communication"). */
const BAUD_TOLERANCE = 0.03;

/**
 * firmware-sim's servo bus: one SimServo per configured id, answering
 * instruction packets of one protocol on a byte stream. Ground truth goes to
 * the effects log with the serial sim's events; a bus carries no action id,
 * so `action_id` is null and `motion` names the motion (one goal write to a
 * set of servos) for pairing starts with ends.
 */
export class BusSimulator implements ByteStreamEndpoint {
  /** Every servo on the bus, in layout order (several may share an id or sit at other bauds). */
  readonly all: readonly SimServo[];
  readonly #o: BusSimulatorOptions;
  /** The baud the host's side of the line runs at: a servo set to another rate hears only noise. */
  #lineBaud: number;
  readonly #decoder: PacketDecoder;
  readonly #motions = new Map<string, Motion>();
  readonly #timers = new Set<{ id: number }>();
  #write: ((bytes: Uint8Array) => void) | undefined;
  #busFreeAt = 0;
  #frozenUntil = -Infinity;
  #nextMotion = 1;
  #closed = false;
  readonly #stallOnCue: Set<string>;
  readonly #powerLossOnCue: Set<string>;

  constructor(options: BusSimulatorOptions) {
    this.#o = options;
    this.#decoder = options.protocol.createDecoder();
    const table = options.protocol.table;
    const now = options.clock.now();
    this.all = layOutServos(options.config, options.protocol, options.layout).map(
      (l) =>
        new SimServo(
          l.axis,
          table,
          options.modelNumber === undefined ? l : { ...l, modelNumber: options.modelNumber },
          l.startCount,
          now,
        ),
    );
    this.#lineBaud = options.baud ?? options.config.bus?.baud ?? table.setup.factoryBaud;
    const names = new Set(this.all.map((s) => s.axis.name));
    for (const [flag, list] of [
      ["--stall-joint", options.stallJoints],
      ["--power-loss-joint", options.powerLossJoints],
    ] as const) {
      const unknownAxes = (list ?? []).filter((n) => !names.has(n));
      if (unknownAxes.length > 0)
        throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
          path: flag,
          issues: `no axis named ${unknownAxes.join(", ")}`,
        });
    }
    this.#stallOnCue = new Set(options.stallJoints ?? []);
    this.#powerLossOnCue = new Set(options.powerLossJoints ?? []);
    const heated = Object.keys(options.servoTemperatures ?? {});
    for (const [flag, list] of [
      ["--heat-joint", options.heatJoints ?? []],
      ["--servo-temperature", heated],
    ] as const) {
      const unknownAxes = list.filter((n) => !names.has(n));
      if (unknownAxes.length > 0)
        throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
          path: flag,
          issues: `no axis named ${unknownAxes.join(", ")}`,
        });
    }
    for (const s of this.all) {
      const t = options.servoTemperatures?.[s.axis.name];
      if (t !== undefined) s.temperature = t;
      if (options.supplyVoltage !== undefined) s.voltage = options.supplyVoltage;
      this.#applyCondition(s, now);
    }
    const heating = this.all.filter((s) => options.heatJoints?.includes(s.axis.name));
    if (heating.length > 0) this.#heat(heating);
  }

  /** Warms the servos on --heat-joint while they hold torque, once a second, until they trip. */
  #heat(servos: readonly SimServo[]): void {
    this.#after(HEAT_TICK_MS, () => {
      for (const s of servos)
        if (s.torque)
          this.setCondition(s.axis.name, { temperature: s.temperature + (HEAT_RATE_C_PER_S * HEAT_TICK_MS) / 1000 });
      this.#heat(servos);
    });
  }

  /**
   * Sets what a servo's sensors read (tests, cues): its temperature (°C)
   * and/or its supply (V), then lets its protections act on them as the
   * real servo's do (#applyCondition).
   */
  setCondition(axis: string, reading: { readonly temperature?: number; readonly voltage?: number }): void {
    const s = this.all.find((x) => x.axis.name === axis);
    if (!s)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: "axis",
        issues: `no servo on an axis named ${axis}`,
      });
    if (reading.temperature !== undefined) s.temperature = reading.temperature;
    if (reading.voltage !== undefined) s.voltage = reading.voltage;
    this.#applyCondition(s, this.#o.clock.now());
  }

  /** The servo supply of the whole bus is now `volts` (a sagging or over-voltage supply). */
  setSupplyVoltage(volts: number): void {
    for (const s of this.all) this.setCondition(s.axis.name, { voltage: volts });
  }

  /** Lets a servo's own protections act on its temperature and supply (servoProtection). */
  #applyCondition(s: SimServo, now: number): void {
    const verdict = servoProtection(s, this.#o.protocol.table);
    if (verdict.kind === "trip") this.#shutDown(s, now, verdict.bits, verdict.detail, { clears: false });
    else s.set(this.#o.protocol.table.hardwareError, verdict.bits);
  }

  /** The servos by the id the config gave their axis (the first, where a layout repeats one): for tests. */
  get servos(): ReadonlyMap<number, SimServo> {
    const byId = new Map<number, SimServo>();
    for (const s of this.all) if (!byId.has(s.axis.id)) byId.set(s.axis.id, s);
    return byId;
  }

  setLineBaud(baud: number): number {
    this.#lineBaud = baud;
    return baud;
  }

  lineBaud(): number {
    return this.#lineBaud;
  }

  attach(write: (bytes: Uint8Array) => void): void {
    this.#write = write;
  }

  detach(): void {
    this.#write = undefined;
  }

  close(): void {
    this.#closed = true;
    for (const t of this.#timers) this.#o.clock.clearTimer(t);
    this.#timers.clear();
  }

  receive(chunk: Uint8Array): void {
    const arrivedAt = this.#o.clock.now();
    for (const packet of this.#decoder.push(chunk)) {
      const { protocol, faults } = this.#o;
      if (!protocol.isInstruction(packet)) continue;
      // Wire faults hit the packet as a whole: a damaged packet fails its check and is ignored, as by a servo.
      const probe = Uint8Array.of(0, 0);
      const wire = faults.onWire(probe, "to_device");
      if (wire === undefined || wire.some((b) => b !== 0)) continue;
      this.#handle(packet, arrivedAt);
    }
  }

  #handle(packet: BusPacket, arrivedAt: number): void {
    const { protocol } = this.#o;
    const i = protocol.instructions;
    const now = this.#o.clock.now();
    const addr = (p: Uint8Array, at: number): number =>
      protocol.addressBytes === 2 ? (p[at] ?? 0) | ((p[at + 1] ?? 0) << 8) : (p[at] ?? 0);
    const a = protocol.addressBytes;
    const inBytes = packet.params.length + protocol.instructionOverhead;
    const broadcast = packet.id === protocol.broadcastId;
    switch (packet.code) {
      case i.ping: {
        // To the broadcast id every servo answers, in id order (e-Manual Protocol 2.0, "Ping"); a shared id answers in one slot.
        const heard = broadcast ? this.#hearing(undefined, now) : this.#hearing(packet.id, now);
        const ids = [...new Set(heard.map((s) => s.id))].sort((x, y) => x - y);
        const pingData = (s: SimServo): Uint8Array =>
          protocol.table.setup.pingReportsModel
            ? Uint8Array.from([
                s.memory[0] ?? 0,
                s.memory[1] ?? 0,
                s.get(protocol.table.setup.firmware[0] ?? protocol.table.modelNumber),
              ])
            : new Uint8Array(0);
        this.#reply(
          ids.map((id) => ({
            id,
            answers: heard.filter((s) => s.id === id).map((servo) => ({ servo, data: pingData(servo) })),
          })),
          inBytes,
          arrivedAt,
        );
        return;
      }
      case i.read: {
        if (broadcast) return;
        const heard = this.#hearing(packet.id, now).filter((s) => answersReads(s));
        const address = addr(packet.params, 0);
        const length = addr(packet.params, a);
        this.#reply(
          [{ id: packet.id, answers: heard.map((servo) => this.#readAnswer(servo, address, length, now)) }],
          inBytes,
          arrivedAt,
        );
        return;
      }
      case i.write: {
        const address = addr(packet.params, 0);
        const data = packet.params.subarray(a);
        const heard = broadcast ? this.#hearing(undefined, now) : this.#hearing(packet.id, now);
        const setup = protocol.table.setup;
        // Dynamixel X takes EEPROM writes only with torque off: otherwise Access Error and the old value stays
        // (e-Manual Protocol 2.0, status packet error 0x07; X-series "EEPROM Area").
        const locked = (s: SimServo): boolean => setup.eepromNeedsTorqueOff && s.torque && address < setup.ramStart;
        // Status_Return_Level as it was when the write arrived: a write that lowers it is still answered.
        const answering = heard.filter((s) => answersWrites(s));
        const refused = this.#applyWrites(
          heard.filter((s) => !locked(s)).map((servo) => ({ servo, address, data })),
          now,
        );
        const errorOf = (s: SimServo): number | undefined =>
          locked(s)
            ? ACCESS_ERROR
            : refused.has(s) && setup.goalOutsideLimits.kind === "refused"
              ? setup.goalOutsideLimits.statusError
              : undefined;
        // Replies go out with the id and at the baud the servo had when it heard the write; a new ID or Baud_Rate holds from the next packet.
        if (!broadcast)
          this.#reply(
            [
              {
                id: packet.id,
                answers: answering.map((servo) => ({ servo, data: new Uint8Array(0), ...withError(errorOf(servo)) })),
              },
            ],
            inBytes,
            arrivedAt,
          );
        return;
      }
      case i.syncWrite: {
        const address = addr(packet.params, 0);
        const length = addr(packet.params, a);
        const writes: { servo: SimServo; address: number; data: Uint8Array }[] = [];
        for (let at = 2 * a; at + 1 + length <= packet.params.length; at += 1 + length) {
          for (const servo of this.#hearing(packet.params[at] ?? -1, now))
            writes.push({ servo, address, data: packet.params.slice(at + 1, at + 1 + length) });
        }
        this.#applyWrites(writes, now);
        return;
      }
      case i.syncRead: {
        const address = addr(packet.params, 0);
        const length = addr(packet.params, a);
        const slots = [...packet.params.subarray(2 * a)].map((id) => ({
          id,
          answers: this.#hearing(id, now)
            .filter((s) => answersReads(s))
            .map((servo) => this.#readAnswer(servo, address, length, now)),
        }));
        this.#reply(slots, inBytes, arrivedAt);
        return;
      }
      default:
        if (i.reboot !== undefined && packet.code === i.reboot && !broadcast) {
          const heard = this.#hearing(packet.id, now);
          this.#reply(
            [
              {
                id: packet.id,
                answers: heard.filter((s) => answersWrites(s)).map((servo) => ({ servo, data: new Uint8Array(0) })),
              },
            ],
            inBytes,
            arrivedAt,
          );
          for (const s of heard) this.#powerLoss(s, now, "reboot instruction");
        }
    }
  }

  /** What a servo answers to a read: its registers, or the simulator's mount block at its own address. */
  #readAnswer(
    servo: SimServo,
    address: number,
    length: number,
    now: number,
  ): { servo: SimServo; data: Uint8Array; error?: number } {
    const block = SIM_MOUNT_BLOCK[this.#o.protocol.name];
    // The mount in the frame the host reads positions in: through the servo's Homing_Offset.
    if (address === block.address && length === block.size)
      return {
        servo,
        data: encodeSimMount({
          kind: servo.axis.kind,
          zeroCount: servo.axis.zeroCount + servo.homingOffset(),
          countsPerUnit: servo.axis.countsPerUnit,
        }),
      };
    if (address + length > servo.memory.length) return { servo, data: new Uint8Array(0), error: ACCESS_ERROR };
    servo.refresh(now);
    return { servo, data: servo.memory.slice(address, address + length) };
  }

  /**
   * The servos that make sense of a packet now: at `id` (any id for the
   * broadcast), powered up, and set to the line's baud. A servo at another
   * baud sees framing errors, not a packet, and stays silent.
   */
  #hearing(id: number | undefined, now: number): SimServo[] {
    const line = this.#lineBaud;
    return this.all.filter(
      (s) =>
        (id === undefined || s.id === id) && now >= s.bootingUntil && Math.abs(s.baud - line) <= line * BAUD_TOLERANCE,
    );
  }

  /**
   * Sends the status packets of one instruction, slot by slot (one slot per
   * id asked). Servos sharing an id answer in the same slot at the same time
   * and their packets collide on the wire (mergeCollidingReplies).
   */
  #reply(
    slots: readonly { id: number; answers: readonly { servo: SimServo; data: Uint8Array; error?: number }[] }[],
    inBytes: number,
    arrivedAt: number,
  ): void {
    const { protocol, clock, baud, ackDelayMs, faults } = this.#o;
    const now = clock.now();
    if (now < this.#frozenUntil) return;
    const packets: Uint8Array[] = [];
    for (const slot of slots) {
      const sent = slot.answers.map((r) => {
        const hw = r.servo.hardwareError;
        // Dynamixel 2.0: the Alert bit (0x80) on every status packet while Hardware_Error_Status is non-zero
        // (e-Manual Protocol 2.0 "Status Packet" → "Error"; ROBOTIS-GIT/emanual docs/en/dxl/protocol2.md
        // @ 01179568a085cfc99bdad6e880e43fa871bd318a); the transport reads 64..70 only when it sees it.
        const error = protocol.name === "dynamixel_2" ? (hw !== 0 ? 0x80 : 0) | (r.error ?? 0) : hw;
        return protocol.status(slot.id, error, r.data);
      });
      if (sent.length === 0) continue;
      const wire = faults.onWire(mergeCollidingReplies(sent), "to_host");
      if (wire !== undefined) packets.push(wire);
    }
    if (packets.length === 0) return;
    const bytes = Uint8Array.from(packets.flatMap((p) => [...p]));
    let sendAt = now + ackDelayMs;
    const wireBaud = baud === undefined ? undefined : this.#lineBaud;
    if (wireBaud !== undefined) {
      // Half duplex: the instruction occupied the wire first, then the replies, one after another.
      const start = Math.max(arrivedAt + (inBytes * 10 * 1000) / wireBaud, this.#busFreeAt) + ackDelayMs;
      this.#busFreeAt = start + (bytes.length * 10 * 1000) / wireBaud;
      sendAt = this.#busFreeAt;
    }
    if (sendAt <= now) {
      this.#write?.(bytes);
      return;
    }
    // Precise: the emulated wire time is the figure the status loop is measured against.
    this.#after(sendAt - now, () => this.#write?.(bytes), { precise: true });
  }

  /** Applies writes as the servos take them; returns the servos that refused theirs for a goal outside their position limits. */
  #applyWrites(writes: readonly { servo: SimServo; address: number; data: Uint8Array }[], now: number): Set<SimServo> {
    const table = this.#o.protocol.table;
    const goalChanged: SimServo[] = [];
    const torqueOn: SimServo[] = [];
    const refused = new Set<SimServo>();
    for (const { servo, address, data } of writes) {
      const end = address + data.length;
      const covers = (reg: { address: number; size: number }): boolean =>
        address <= reg.address && reg.address + reg.size <= end;
      const wasTorque = servo.torque;
      const oldGoal = servo.get(table.goalPosition);
      if (
        covers(table.torqueEnable) &&
        (data[table.torqueEnable.address - address] ?? 0) === 1 &&
        servo.hardwareError !== 0
      ) {
        // A servo in hardware error refuses torque until it is rebooted (e-Manual, Hardware_Error_Status).
        continue;
      }
      const newGoal = covers(table.goalPosition)
        ? decodeRegister(table.goalPosition, data, table.goalPosition.address - address)
        : undefined;
      if (
        newGoal !== undefined &&
        table.setup.goalOutsideLimits.kind === "refused" &&
        !servo.goalWithinLimits(newGoal)
      ) {
        // A Dynamixel X takes nothing of a write whose goal is outside Min/Max_Position_Limit: Data Limit Error, old goal kept, no motion.
        refused.add(servo);
        this.#o.logger.info(
          { servo: servo.axis.id, goal: newGoal },
          "goal outside the position limits refused (Data Limit Error)",
        );
        continue;
      }
      servo.memory.set(data, address);
      this.#keepEeprom(servo, address, data.length);
      if (covers(table.torqueEnable)) {
        if (!wasTorque && servo.torque) {
          // The motor takes over from a hand that was turning it: the horn stops where it is, then goes to the goal.
          servo.freeze(now);
          torqueOn.push(servo);
        }
        if (wasTorque && !servo.torque) this.#endServo(servo, now, "stopped", "torque disabled");
      }
      if (
        covers(table.goalPosition) &&
        servo.torque &&
        (servo.get(table.goalPosition) !== oldGoal || !servo.moving(now))
      )
        goalChanged.push(servo);
    }
    // Enabling torque drives the horn to whatever the goal register holds: a careless host moves the arm here.
    const movers = [...new Set([...goalChanged, ...torqueOn])];
    if (movers.length > 0) this.#startMotion(movers, now);
    return refused;
  }

  /**
   * EEPROM written now is kept across power loss: on a Dynamixel whenever the
   * write was taken (torque off), on a Feetech only while Lock is 0 —
   * with Lock 1 the new value holds until the servo loses power.
   */
  #keepEeprom(servo: SimServo, address: number, length: number): void {
    const setup = this.#o.protocol.table.setup;
    if (address >= setup.ramStart) return;
    const lock = setup.eepromLock;
    if (lock && servo.get(lock.register) !== lock.unlocked) return;
    servo.keepEeprom(address, length);
  }

  #startMotion(servos: readonly SimServo[], now: number): void {
    const table = this.#o.protocol.table;
    const joining: SimServo[] = [];
    for (const s of servos) {
      s.sample(now);
      const goal = s.goalActual();
      const moving = s.moving(now);
      if (!moving && Math.abs(goal - s.position) < 1) continue;
      if (moving && Math.abs(goal - s.position) <= HOLD_COUNTS) {
        // A stop: the host holds the servo where it is.
        this.#endServo(s, now, "stopped", "halted by a goal at the present position");
        s.planToGoal(now);
        continue;
      }
      if (moving) this.#endServo(s, now, "stopped", "preempted: a new goal replaced the one in progress");
      joining.push(s);
    }
    if (joining.length === 0) return;
    const failure = this.#o.faults.genuineFailure();
    if (failure === "refused") {
      // Nothing moves and the goals do not take: as if every servo refused the value (Data Limit Error).
      for (const s of joining) s.set(table.goalPosition, s.registerCount(s.position));
      this.#o.logger.info({ servos: joining.map((s) => s.axis.id) }, "simulated refusal: goals not taken");
      return;
    }
    const key = `bus_${this.#nextMotion++}`;
    const motion: Motion = {
      key,
      servos: new Set(joining),
      joints: joining.map((s) => s.axis.name),
      from: Object.fromEntries(joining.map((s) => [s.axis.name, positionOf(s.axis, s.position)])),
      to: Object.fromEntries(joining.map((s) => [s.axis.name, positionOf(s.axis, s.goalActual())])),
      outcome: "reached",
      detail: "",
      faultTimer: undefined,
    };
    this.#motions.set(key, motion);
    this.#o.effects.append({
      event: "motion_start",
      action_id: null,
      motion: key,
      joints: motion.joints,
      from: motion.from,
      to: motion.to,
    });
    if (failure === "faulted_at_start") {
      for (const s of joining) {
        s.motionKey = key;
        this.#shutDown(s, now, OVERLOAD_BIT, "simulated overload at start; nothing moved");
      }
      return;
    }
    let longest = 0;
    for (const s of joining) {
      s.motionKey = key;
      const t = s.planToGoal(now);
      longest = Math.max(longest, t.endMs - now);
      this.#scheduleEnd(s, t.endMs - now);
    }
    const seeded = this.#o.faults.midMotion();
    const onCue = joining.find((s) => this.#stallOnCue.delete(s.axis.name));
    const powerCue = onCue ? undefined : joining.find((s) => this.#powerLossOnCue.delete(s.axis.name));
    // A fault on cue wins over the seeded faults of this motion (drawn all the same, so the seed's later draws do not shift).
    const plan = onCue
      ? { stall: { fraction: 0.5, pick: 0 }, ...(seeded.freezeMs === undefined ? {} : { freezeMs: seeded.freezeMs }) }
      : powerCue
        ? {}
        : seeded;
    const victim = onCue ?? joining[Math.floor((plan.stall?.pick ?? 0) * joining.length)] ?? joining[0];
    if (plan.freezeMs !== undefined) this.#frozenUntil = now + plan.freezeMs;
    if (powerCue) {
      motion.faultTimer = this.#after(longest * 0.5, () =>
        this.powerLoss(this.#o.powerLossMs ?? 500, `power loss on cue (${powerCue.axis.name})`),
      );
    } else if (plan.stall && victim) {
      motion.faultTimer = this.#after(longest * plan.stall.fraction, () => {
        const t = this.#o.clock.now();
        if (victim.motionKey !== key) return;
        victim.freeze(t);
        this.#endServo(victim, t, "stalled", "simulated stall: blocked part-way");
      });
    } else if (plan.reboot && victim) {
      motion.faultTimer = this.#after(longest * plan.reboot.fraction, () => {
        if (victim.motionKey !== key) return;
        this.#powerLoss(victim, this.#o.clock.now(), "simulated power loss");
      });
    }
  }

  #scheduleEnd(s: SimServo, inMs: number): void {
    if (s.endTimer) this.#clear(s.endTimer);
    s.endTimer = this.#after(Math.max(0, inMs), () => {
      s.endTimer = undefined;
      this.#endServo(s, this.#o.clock.now(), "reached", "");
    });
  }

  /** Takes a servo out of its motion with this outcome; the motion ends when its last servo does. */
  #endServo(s: SimServo, now: number, outcome: Outcome, detail: string): void {
    if (s.endTimer) this.#clear(s.endTimer);
    s.endTimer = undefined;
    const key = s.motionKey;
    s.motionKey = undefined;
    if (outcome !== "reached") s.freeze(now);
    if (key === undefined) return;
    const motion = this.#motions.get(key);
    if (!motion) return;
    s.sample(now);
    motion.servos.delete(s);
    if (OUTCOME_RANK[outcome] > OUTCOME_RANK[motion.outcome]) {
      motion.outcome = outcome;
      motion.detail = detail;
    }
    if (motion.servos.size > 0) return;
    this.#motions.delete(key);
    if (motion.faultTimer) this.#clear(motion.faultTimer);
    const to = Object.fromEntries(
      motion.joints.map((name) => {
        const servo = this.all.find((x) => x.axis.name === name);
        return [name, servo ? positionOf(servo.axis, servo.position) : Number.NaN];
      }),
    );
    this.#o.effects.append({
      event: "motion_end",
      action_id: null,
      motion: key,
      joints: motion.joints,
      from: motion.from,
      to,
      outcome: motion.outcome,
      detail: motion.detail,
    });
  }

  /**
   * A protection trip: the hardware-error bits set, torque off, the horn
   * stopped where it is, and its motion ended `faulted`.
   * Dynamixel X latches it: Torque Enable is cleared and only a REBOOT brings
   * torque back (e-Manual X-series "Shutdown"; ROBOTIS-GIT/emanual
   * _includes/en/dxl/x/shutdown.md @ 53247968642942cbbdb3fb52e47d5aef4269267a);
   * the reboot instruction (#powerLoss) clears it. Feetech STS unloads
   * (Torque_Enable 0) on a condition enabled in Unloading_Condition (19; bit 5
   * overload) and its Status (65) bits report the condition while it lasts
   * (Feetech STS/SMS memory table; addresses as in LeRobot feetech/tables.py
   * @ 0558acc97b50079ffe184f2e0c4e2a93ed5b7f8f): once the load is gone the bit
   * clears, and torque stays off until a host enables it again.
   */
  #shutDown(
    s: SimServo,
    now: number,
    bits: number,
    detail: string,
    options: { readonly clears: boolean } = { clears: true },
  ): void {
    const table = this.#o.protocol.table;
    s.set(table.hardwareError, bits);
    s.set(table.torqueEnable, 0);
    this.#endServo(s, now, "faulted", detail);
    if (table.family === "feetech_sts" && options.clears) {
      this.#after(OVERLOAD_CLEARS_MS, () => s.set(table.hardwareError, 0));
    }
  }

  /** A protection trip of one servo now (tests): overload unless other hardware-error bits are named. */
  shutDownOnCue(id: number, bits: number = OVERLOAD_BIT): void {
    const s = this.servos.get(id);
    if (s) this.#shutDown(s, this.#o.clock.now(), bits, "hardware error on cue");
  }

  /** Power loss of one servo: it stops, forgets its goal and torque, and is deaf while it comes up. */
  #powerLoss(s: SimServo, now: number, why: string, bootMs: number = this.#o.bootMs ?? 50): void {
    const key = s.motionKey;
    s.freeze(now);
    this.#endServo(s, now, "faulted", why);
    s.powerOn();
    s.bootingUntil = now + bootMs;
    // A reboot clears the latch, not the cause: a servo still too hot trips again as it comes up.
    this.#applyCondition(s, now);
    this.#o.effects.append({
      event: "reboot",
      action_id: null,
      joints: [s.axis.name],
      interrupted: key === undefined ? [] : [key],
      old_boot_id: 0,
      boot_id: 0,
    });
    this.#o.logger.info({ servo: s.axis.id, why }, "servo power cycled");
  }

  /**
   * The servo supply of the whole bus drops for `outageMs` (a browned-out
   * supply, a pulled power lead), the USB adapter staying up: every servo
   * stops where it is, answers nothing until power is back and it has
   * booted, and comes up as after any power-on. On a real servo that means
   * the volatile registers are back at their initial values while the
   * encoder still reads where the horn is:
   * - Dynamixel X: "Data in the RAM Area is reset to initial values when the
   *   power is reset" (Torque Enable 0, Goal Position, profiles), while the
   *   EEPROM area (ID, Operating Mode, limits) is kept (e-Manual X-series
   *   control table, "Area (EEPROM, RAM)" and "Torque Enable(64)": default 0;
   *   ROBOTIS-GIT/emanual _includes/en/dxl/x/control_table.md @
   *   add0d1dabec2202f8ae9848b7eda8e98f9a44b0f, torque_enable.md @
   *   9148f160983dcfb479b19cac1f29f85ffefdf820). A servo whose Startup
   *   Configuration(60) has "Startup Torque On" would come back holding
   *   torque (startup_configuration.md @ 9d6b128d); the simulated ones do not.
   * - Feetech STS: torque enable (40), acceleration, goal position, goal time
   *   and speed, torque limit (40–55) are the runtime (SRAM) area; ID, limits,
   *   offset and mode (5–33) the persistent one (ftservo/ftservo-wiki
   *   docs/en/reference/memory-sms-sts.md @ a1c18bd4df9c845c3027703ed0b13b2093147afb,
   *   after the SDK's SMS_STS.h "SRAM" / "EPROM" sections).
   * SimServo.powerOn puts the goal register away from the horn on purpose: a
   * host that switches torque on before writing the goal is caught moving
   * the arm. One `reboot` effect names every servo and the motions cut short.
   */
  powerLoss(outageMs: number, why = "power loss on cue"): void {
    const now = this.#o.clock.now();
    const interrupted = new Set<string>();
    for (const s of this.servos.values()) {
      if (s.motionKey !== undefined) interrupted.add(s.motionKey);
      s.freeze(now);
      this.#endServo(s, now, "faulted", `${why}: the servo supply dropped`);
      s.powerOn();
      s.bootingUntil = now + outageMs + (this.#o.bootMs ?? 50);
      this.#applyCondition(s, now);
    }
    this.#o.effects.append({
      event: "reboot",
      action_id: null,
      joints: [...this.servos.values()].map((s) => s.axis.name),
      interrupted: [...interrupted],
      old_boot_id: 0,
      boot_id: 0,
    });
    this.#o.logger.warn({ outage_ms: outageMs, interrupted: [...interrupted], why }, "the bus lost power");
  }

  /**
   * Cuts one servo's power now, as --reboot-rate does part-way through a motion
   * (tests, demos). `bootMs` overrides how long it stays deaf: 0 is a brown-out
   * the host sees no gap in — only the torque register tells.
   */
  powerCycle(id: number, bootMs?: number): void {
    const s = this.servos.get(id);
    if (s) this.#powerLoss(s, this.#o.clock.now(), "power cycled on cue", bootMs);
  }

  /**
   * A hand turns a torque-off servo's horn to `toCount` over `durationMs`
   * (tests, and `armbridge calibrate` on the simulator). A servo holding
   * torque resists: that is refused, as a person would feel it. Logged as
   * `moved_by_hand` with the axis's true positions. Returns how long the
   * turn takes (ms): a hand does not go faster than it can.
   */
  turnByHand(servo: SimServo, toCount: number, durationMs = 300): number {
    if (!this.all.includes(servo)) throw new Error("not a servo of this bus");
    if (servo.torque)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: servo.axis.name,
        issues: "the servo holds torque: it cannot be turned by hand",
      });
    const now = this.#o.clock.now();
    servo.sample(now);
    const from = positionOf(servo.axis, servo.position);
    const trajectory = servo.turnByHand(now, toCount, durationMs);
    this.#o.effects.append({
      event: "moved_by_hand",
      action_id: null,
      joints: [servo.axis.name],
      from: { [servo.axis.name]: from },
      to: { [servo.axis.name]: positionOf(servo.axis, toCount) },
    });
    return trajectory.endMs - now;
  }

  /** Turns a joint (or the gripper, 0..1) by hand to `position` in its true units; returns how long that takes (ms). */
  turnJointByHand(name: string, position: number, durationMs = 300): number {
    const servo = this.all.find((s) => s.axis.name === name);
    if (!servo) throw new Error(`no servo on joint ${name}`);
    return this.turnByHand(servo, countOf(servo.axis, position), durationMs);
  }

  /** Where a joint truly is now, in its units (rad, or 0..1 for the gripper): the ground truth calibration is judged by. */
  truePosition(name: string): number | undefined {
    const servo = this.all.find((s) => s.axis.name === name);
    if (!servo) return undefined;
    servo.sample(this.#o.clock.now());
    return positionOf(servo.axis, servo.position);
  }

  /** The goal register of a servo, for tests. */
  goalOf(id: number): number | undefined {
    const s = this.servos.get(id);
    return s
      ? decodeRegister(this.#o.protocol.table.goalPosition, s.memory, this.#o.protocol.table.goalPosition.address)
      : undefined;
  }

  #after(ms: number, fn: () => void, options?: { readonly precise: boolean }): { id: number } {
    const timer = this.#o.clock.setTimer(
      ms,
      () => {
        this.#timers.delete(timer);
        if (!this.#closed) fn();
      },
      options,
    );
    this.#timers.add(timer);
    return timer;
  }

  #clear(timer: { id: number }): void {
    this.#o.clock.clearTimer(timer);
    this.#timers.delete(timer);
  }
}

const withError = (error: number | undefined): { error?: number } => (error === undefined ? {} : { error });
