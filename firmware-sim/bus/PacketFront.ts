import type { BusPacket, BusProtocol, PacketDecoder } from "../../src/protocol/bus/index.js";
import type { FaultPlan } from "../faults.js";
import type { BusTimers } from "./BusTimers.js";
import { mergeCollidingReplies } from "./mergeCollidingReplies.js";
import { ACCESS_ERROR, type ReadAnswer, type RegisterFile, type RegisterWrite } from "./RegisterFile.js";
import type { ServoConditions } from "./ServoConditions.js";
import type { SimServo } from "./SimServo.js";
import { answersReads, answersWrites } from "./statusReturnLevel.js";

/** A UART decodes a byte sent within about 3 % of its own rate (e-Manual: "less than 3% of the baud rate error margin will not affect UART communication"). */
const BAUD_TOLERANCE = 0.03;

export interface PacketFrontOptions {
  readonly protocol: BusProtocol;
  readonly faults: FaultPlan;
  readonly timers: BusTimers;
  readonly all: readonly SimServo[];
  readonly registers: RegisterFile;
  readonly conditions: ServoConditions;
  /** Every reply leaves this much later: a late status packet. */
  readonly ackDelayMs: number;
  /** Emulate the bus at the line's baud (10 bits per byte, half duplex); undefined = as fast as the link goes. */
  readonly baud: number | undefined;
  /** The baud the line starts at. */
  readonly lineBaud: number;
}

/** One instruction packet as it arrived: when, how long it held the wire, and to whom. */
interface Arrival {
  readonly packet: BusPacket;
  readonly now: number;
  readonly arrivedAt: number;
  readonly inBytes: number;
  readonly broadcast: boolean;
}

/** The servos of one reply slot (one id asked) and what each answers. */
interface ReplySlot {
  readonly id: number;
  readonly answers: readonly ReadAnswer[];
}

/**
 * The bus's packet front: instruction packets in from the byte stream, each
 * heard by the servos at its id and the line's baud, status packets out in
 * their slots, timed as a half-duplex wire at the line's baud.
 */
export class PacketFront {
  readonly #options: PacketFrontOptions;
  readonly #decoder: PacketDecoder;
  /** The baud the host's side of the line runs at: a servo set to another rate hears only noise. */
  #lineBaud: number;
  #write: ((bytes: Uint8Array) => void) | undefined;
  #busFreeAt = 0;
  #frozenUntil = -Infinity;

  constructor(options: PacketFrontOptions) {
    this.#options = options;
    this.#decoder = options.protocol.createDecoder();
    this.#lineBaud = options.lineBaud;
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

  /** The bus answers nothing until then. */
  freezeUntil(ms: number): void {
    this.#frozenUntil = ms;
  }

  receive(chunk: Uint8Array): void {
    const { protocol, faults, timers } = this.#options;
    const arrivedAt = timers.now();
    for (const packet of this.#decoder.push(chunk)) {
      if (!protocol.isInstruction(packet)) continue;
      // Wire faults hit the packet as a whole: a damaged packet fails its check and is ignored, as by a servo.
      const probe = Uint8Array.of(0, 0);
      const wire = faults.onWire(probe, "to_device");
      if (wire === undefined || wire.some((b) => b !== 0)) continue;
      this.#handle({
        packet,
        now: timers.now(),
        arrivedAt,
        inBytes: packet.params.length + protocol.instructionOverhead,
        broadcast: packet.id === protocol.broadcastId,
      });
    }
  }

  #handle(arrival: Arrival): void {
    const i = this.#options.protocol.instructions;
    switch (arrival.packet.code) {
      case i.ping:
        return this.#ping(arrival);
      case i.read:
        return this.#read(arrival);
      case i.write:
        return this.#writeInstruction(arrival);
      case i.syncWrite:
        return this.#syncWrite(arrival);
      case i.syncRead:
        return this.#syncRead(arrival);
      default:
        if (i.reboot !== undefined && arrival.packet.code === i.reboot && !arrival.broadcast) this.#reboot(arrival);
    }
  }

  /** A register address or length at `at` of the parameters, in the protocol's width. */
  #address(params: Uint8Array, at: number): number {
    return this.#options.protocol.addressBytes === 2
      ? (params[at] ?? 0) | ((params[at + 1] ?? 0) << 8)
      : (params[at] ?? 0);
  }

  #ping({ packet, now, arrivedAt, inBytes, broadcast }: Arrival): void {
    const { table } = this.#options.protocol;
    // To the broadcast id every servo answers, in id order (e-Manual Protocol 2.0, "Ping"); a shared id answers in one slot.
    const heard = broadcast ? this.#hearing(undefined, now) : this.#hearing(packet.id, now);
    const ids = [...new Set(heard.map((s) => s.id))].sort((x, y) => x - y);
    const pingData = (s: SimServo): Uint8Array =>
      table.setup.pingReportsModel
        ? Uint8Array.from([s.memory[0] ?? 0, s.memory[1] ?? 0, s.get(table.setup.firmware[0] ?? table.modelNumber)])
        : new Uint8Array(0);
    this.#reply(
      ids.map((id) => ({
        id,
        answers: heard.filter((s) => s.id === id).map((servo) => ({ servo, data: pingData(servo) })),
      })),
      inBytes,
      arrivedAt,
    );
  }

  #read({ packet, now, arrivedAt, inBytes, broadcast }: Arrival): void {
    if (broadcast) return;
    const heard = this.#hearing(packet.id, now).filter((s) => answersReads(s));
    const address = this.#address(packet.params, 0);
    const length = this.#address(packet.params, this.#options.protocol.addressBytes);
    const { registers } = this.#options;
    this.#reply(
      [{ id: packet.id, answers: heard.map((servo) => registers.read(servo, address, length, now)) }],
      inBytes,
      arrivedAt,
    );
  }

  #writeInstruction({ packet, now, arrivedAt, inBytes, broadcast }: Arrival): void {
    const { protocol, registers } = this.#options;
    const address = this.#address(packet.params, 0);
    const data = packet.params.subarray(protocol.addressBytes);
    const heard = broadcast ? this.#hearing(undefined, now) : this.#hearing(packet.id, now);
    const setup = protocol.table.setup;
    // Dynamixel X takes EEPROM writes only with torque off: otherwise Access Error and the old value stays
    // (e-Manual Protocol 2.0, status packet error 0x07; X-series "EEPROM Area").
    const locked = (s: SimServo): boolean => setup.eepromNeedsTorqueOff && s.torque && address < setup.ramStart;
    // Status_Return_Level as it was when the write arrived: a write that lowers it is still answered.
    const answering = heard.filter((s) => answersWrites(s));
    const refused = registers.write(
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
  }

  #syncWrite({ packet, now }: Arrival): void {
    const a = this.#options.protocol.addressBytes;
    const address = this.#address(packet.params, 0);
    const length = this.#address(packet.params, a);
    const writes: RegisterWrite[] = [];
    for (let at = 2 * a; at + 1 + length <= packet.params.length; at += 1 + length) {
      for (const servo of this.#hearing(packet.params[at] ?? -1, now))
        writes.push({ servo, address, data: packet.params.slice(at + 1, at + 1 + length) });
    }
    this.#options.registers.write(writes, now);
  }

  #syncRead({ packet, now, arrivedAt, inBytes }: Arrival): void {
    const a = this.#options.protocol.addressBytes;
    const address = this.#address(packet.params, 0);
    const length = this.#address(packet.params, a);
    const { registers } = this.#options;
    const slots = [...packet.params.subarray(2 * a)].map((id) => ({
      id,
      answers: this.#hearing(id, now)
        .filter((s) => answersReads(s))
        .map((servo) => registers.read(servo, address, length, now)),
    }));
    this.#reply(slots, inBytes, arrivedAt);
  }

  #reboot({ packet, now, arrivedAt, inBytes }: Arrival): void {
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
    for (const s of heard) this.#options.conditions.powerLossOf(s, now, "reboot instruction");
  }

  /**
   * The servos that make sense of a packet now: at `id` (any id for the
   * broadcast), powered up, and set to the line's baud. A servo at another
   * baud sees framing errors, not a packet, and stays silent.
   */
  #hearing(id: number | undefined, now: number): SimServo[] {
    const line = this.#lineBaud;
    return this.#options.all.filter(
      (s) =>
        (id === undefined || s.id === id) && now >= s.bootingUntil && Math.abs(s.baud - line) <= line * BAUD_TOLERANCE,
    );
  }

  /**
   * Sends the status packets of one instruction, slot by slot (one slot per
   * id asked). Servos sharing an id answer in the same slot at the same time
   * and their packets collide on the wire (mergeCollidingReplies).
   */
  #reply(slots: readonly ReplySlot[], inBytes: number, arrivedAt: number): void {
    const { timers } = this.#options;
    const now = timers.now();
    if (now < this.#frozenUntil) return;
    const bytes = this.#statusPackets(slots);
    if (bytes === undefined) return;
    const sendAt = this.#sendTime(now, bytes.length, inBytes, arrivedAt);
    if (sendAt <= now) {
      this.#write?.(bytes);
      return;
    }
    // Precise: the emulated wire time is the figure the status loop is measured against.
    timers.after(sendAt - now, () => this.#write?.(bytes), { precise: true });
  }

  /** The bytes of the status packets of these slots, as they reach the host; undefined when none does. */
  #statusPackets(slots: readonly ReplySlot[]): Uint8Array | undefined {
    const { protocol, faults } = this.#options;
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
    if (packets.length === 0) return undefined;
    return Uint8Array.from(packets.flatMap((p) => [...p]));
  }

  /** When a reply of `outBytes` leaves: after the ack delay, and on an emulated wire after the instruction and the replies before it. */
  #sendTime(now: number, outBytes: number, inBytes: number, arrivedAt: number): number {
    const { baud, ackDelayMs } = this.#options;
    if (baud === undefined) return now + ackDelayMs;
    const wireBaud = this.#lineBaud;
    // Half duplex: the instruction occupied the wire first, then the replies, one after another.
    const start = Math.max(arrivedAt + (inBytes * 10 * 1000) / wireBaud, this.#busFreeAt) + ackDelayMs;
    this.#busFreeAt = start + (outBytes * 10 * 1000) / wireBaud;
    return this.#busFreeAt;
  }
}

const withError = (error: number | undefined): { error?: number } => (error === undefined ? {} : { error });
