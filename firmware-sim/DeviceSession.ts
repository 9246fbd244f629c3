import type { Logger } from "pino";
import {
  FrameDecoder,
  OP,
  PROTOCOL_VERSION,
  WIRE_LIMITS,
  encodeFrame,
  encodePayload,
  type Message,
  type MessageOf,
  type NackCode,
} from "../src/protocol/serial/index.js";
import type { Clock, ClockTimer } from "./Clock.js";
import type { FaultPlan } from "./faults.js";
import type { SimulatedArm } from "./SimulatedArm.js";

export interface DeviceSessionOptions {
  readonly arm: SimulatedArm;
  readonly clock: Clock;
  readonly faults: FaultPlan;
  readonly firmwareVersion: string;
  readonly logger: Logger;
  /** STATUS frames per second (0 = never stream). */
  readonly statusHz: number;
  /** Host silence after which motion is halted (0 = no watchdog). */
  readonly watchdogMs: number;
  /** Every reply leaves this much later (STATUS is not delayed). */
  readonly ackDelayMs: number;
  /** How much later still a reply leaves when the fault plan makes it late (`lateReplyRate`). Default 400 ms, past the bridge's 250 ms ACK timeout. */
  readonly lateReplyMs?: number | undefined;
  /** Emulate a UART at this many baud (10 bits per byte); undefined = as fast as the link goes. */
  readonly baud?: number | undefined;
  /** Host frames whose replies are kept for re-sent seqs. */
  readonly replyCacheSize?: number;
}

interface CachedReply {
  readonly fingerprint: string;
  readonly frame: Uint8Array;
}

export const DEFAULT_LATE_REPLY_MS = 400;
const KNOWN_OPS = new Set<number>(Object.values(OP));
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type ReplyBody = DistributiveOmit<MessageOf<"HELLO" | "ACTION" | "ACK" | "NACK">, "seq" | "ackSeq">;

/**
 * The firmware's main loop over one byte stream: frames in, exactly one reply
 * per host frame, STATUS streamed at a fixed rate, and the host-silence
 * watchdog. The stream outlives host connections (a UART does not know who
 * is at the other end), so the arm, the reply cache and the watchdog carry
 * on across `attach` / `detach`.
 */
export class DeviceSession {
  private readonly arm: SimulatedArm;
  private readonly clock: Clock;
  private readonly plan: FaultPlan;
  private readonly log: Logger;
  private readonly options: DeviceSessionOptions;
  private readonly decoder = new FrameDecoder();
  private readonly replies = new Map<number, CachedReply>();
  private readonly pending = new Set<ClockTimer>();
  private inbound: Uint8Array[] = [];
  private inboundBytes = 0;
  private write: ((bytes: Uint8Array) => void) | undefined;
  private seq = 0;
  private txFreeAt = 0;
  private statusTimer: ClockTimer | undefined;
  private watchdogTimer: ClockTimer | undefined;
  private closed = false;

  constructor(options: DeviceSessionOptions) {
    this.options = options;
    this.arm = options.arm;
    this.clock = options.clock;
    this.plan = options.faults;
    this.log = options.logger;
    // A reboot loses RAM: the reply cache goes with the action table.
    this.arm.onReboot(() => {
      this.replies.clear();
      this.decoder.reset();
      this.inbound = [];
      this.inboundBytes = 0;
    });
    // An action's end is reported at once, not at the next tick: a host waiting
    // on (or observing) it learns within a frame time of the real end rather
    // than up to one status period later. Streamed ticks go on as before.
    this.arm.onActionEnd(() => {
      if (!this.closed && options.statusHz > 0) this.sendStatus();
    });
    if (options.statusHz > 0) this.scheduleStatus();
  }

  /** A host is now at the other end of the stream. */
  attach(write: (bytes: Uint8Array) => void): void {
    this.write = write;
    this.decoder.reset();
    this.inbound = [];
    this.inboundBytes = 0;
  }

  detach(): void {
    this.write = undefined;
  }

  /** Bytes from the host, in whatever chunks the link delivers. */
  receive(chunk: Uint8Array): void {
    if (this.closed || this.arm.isBooting()) return;
    let start = 0;
    for (;;) {
      const zero = chunk.indexOf(0, start);
      if (zero === -1) {
        this.bufferInbound(chunk.subarray(start));
        return;
      }
      this.bufferInbound(chunk.subarray(start, zero + 1));
      const frame = Buffer.concat(this.inbound, this.inboundBytes);
      this.inbound = [];
      this.inboundBytes = 0;
      // Wire faults strike whole frames, in both directions, as line noise would.
      const delivered = this.plan.onWire(frame, "to_device");
      if (delivered) for (const result of this.decoder.push(delivered)) this.handle(result);
      start = zero + 1;
    }
  }

  close(): void {
    this.closed = true;
    this.write = undefined;
    if (this.statusTimer) this.clock.clearTimer(this.statusTimer);
    if (this.watchdogTimer) this.clock.clearTimer(this.watchdogTimer);
    for (const t of this.pending) this.clock.clearTimer(t);
    this.pending.clear();
  }

  // ------------------------------------------------------------ inbound

  private bufferInbound(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.inbound.push(Uint8Array.from(bytes));
    this.inboundBytes += bytes.length;
    // Beyond any legal frame: hand it to the decoder, which discards and resynchronises.
    if (this.inboundBytes > WIRE_LIMITS.maxEncodedBytes + 1) {
      for (const part of this.inbound) this.decoder.push(part);
      this.inbound = [];
      this.inboundBytes = 0;
    }
  }

  private handle(result: ReturnType<FrameDecoder["push"]>[number]): void {
    if (!result.ok) {
      if (result.seq === undefined) {
        this.log.debug({ reason: result.reason }, "damaged frame dropped");
        return;
      }
      this.hostHeard();
      const code: NackCode = result.op !== undefined && !KNOWN_OPS.has(result.op) ? "UNKNOWN_OP" : "BAD_FRAME";
      this.log.info({ seq: result.seq, reason: result.reason }, "frame refused");
      this.sendReply(result.seq, { op: "NACK", code, reason: result.reason }, undefined);
      return;
    }
    const message = result.message;
    this.hostHeard();
    const fingerprint = Buffer.from(encodePayload(message)).toString("hex");
    const cached = this.replies.get(message.seq);
    if (cached && cached.fingerprint === fingerprint) {
      this.log.debug({ seq: message.seq, op: message.op }, "repeated frame: original reply sent again");
      this.transmit(cached.frame, "reply");
      return;
    }
    const body = this.dispatch(message);
    this.sendReply(message.seq, body, fingerprint);
  }

  private dispatch(message: Message): ReplyBody {
    switch (message.op) {
      case "HELLO_REQ":
        return this.hello();
      case "MOVE":
        return this.move(message);
      case "STOP":
        return this.stop(message);
      case "QUERY_ACTION": {
        const { record, detail } = this.arm.query(message.actionId, message.voidIfUnknown);
        return { op: "ACTION", record, detail };
      }
      case "PING":
        return { op: "ACK" };
      case "HELLO":
      case "ACTION":
      case "STATUS":
      case "ACK":
      case "NACK":
        return { op: "NACK", code: "UNKNOWN_OP", reason: `${message.op} is sent by devices, not hosts` };
    }
  }

  private hello(): ReplyBody {
    return {
      op: "HELLO",
      firmwareVersion: this.options.firmwareVersion,
      protocolVersion: PROTOCOL_VERSION,
      bootId: this.arm.bootId,
      statusRateHz: Math.min(0xffff, Math.round(this.options.statusHz)),
      watchdogMs: this.options.watchdogMs,
      axes: this.arm.axes.map((a) => ({
        name: a.name,
        kind: a.kind,
        min: a.min,
        max: a.max,
        maxVelocity: a.maxVelocity,
        maxAcceleration: a.maxAcceleration,
      })),
    };
  }

  private move(message: MessageOf<"MOVE">): ReplyBody {
    // Checked before the action table: a MOVE meant for an earlier boot may
    // be a resend of one that already ran there, which this boot forgot. It is
    // not a physical event, so nothing is recorded and nothing is logged.
    if (message.expectBootId !== this.arm.bootId) {
      this.log.info(
        { action_id: message.actionId, expect_boot_id: message.expectBootId, boot_id: this.arm.bootId },
        "MOVE for another boot refused",
      );
      return {
        op: "NACK",
        code: "BOOT_MISMATCH",
        reason: `MOVE expects boot ${message.expectBootId}; device is in boot ${this.arm.bootId}`,
      };
    }
    const reply = this.arm.move(message);
    return reply.kind === "nack"
      ? { op: "NACK", code: reply.code, reason: reply.reason }
      : { op: "ACTION", record: reply.record, detail: reply.detail };
  }

  private stop(message: MessageOf<"STOP">): ReplyBody {
    const bad = message.axes.find((i) => i >= this.arm.axes.length);
    if (bad !== undefined)
      return {
        op: "NACK",
        code: "BAD_AXIS",
        reason: `axis ${bad} does not exist (device has ${this.arm.axes.length})`,
      };
    this.arm.stop(message.axes.length === 0 ? "all" : message.axes, "stopped by host STOP");
    return { op: "ACK" };
  }

  /** Any frame that passed its CRC proves the host is alive. */
  private hostHeard(): void {
    const watchdogMs = this.options.watchdogMs;
    if (watchdogMs <= 0) return;
    this.arm.setFault("watchdog", false);
    if (this.watchdogTimer) this.clock.clearTimer(this.watchdogTimer);
    // A controller's UART takes bytes in while its main loop is busy, so a frame already on the wire
    // when the time runs out was heard. This process may have been starved past the deadline with
    // frames waiting in its socket, and an expired timer runs before they are read: the verdict waits
    // one more turn of the event loop, whose input phase reads them (hostHeard then clears it).
    this.watchdogTimer = this.clock.setTimer(watchdogMs, () => {
      this.watchdogTimer = this.clock.setTimer(0, () => this.watchdogExpired(watchdogMs));
    });
  }

  private watchdogExpired(watchdogMs: number): void {
    this.watchdogTimer = undefined;
    const halted = this.arm.activeActionIds();
    if (halted.length === 0) return;
    this.log.warn({ action_ids: halted, watchdog_ms: watchdogMs }, "host silent: watchdog halts motion");
    this.arm.setFault("watchdog", true);
    this.arm.stop("all", `watchdog: host silent for ${watchdogMs} ms`);
  }

  // ------------------------------------------------------------ outbound

  private nextSeq(): number {
    const seq = this.seq;
    this.seq = (this.seq + 1) & 0xffff;
    return seq;
  }

  private sendReply(ackSeq: number, body: ReplyBody, fingerprint: string | undefined): void {
    const message = { ...body, seq: this.nextSeq(), ackSeq } as Message;
    const frame = encodeFrame(message);
    if (fingerprint !== undefined) {
      this.replies.set(ackSeq, { fingerprint, frame });
      const limit = this.options.replyCacheSize ?? 256;
      if (this.replies.size > limit) {
        const oldest = this.replies.keys().next();
        if (!oldest.done) this.replies.delete(oldest.value);
      }
    }
    this.transmit(frame, "reply");
  }

  private transmit(frame: Uint8Array, kind: "reply" | "status"): void {
    const late = kind === "reply" && this.plan.lateReply() ? (this.options.lateReplyMs ?? DEFAULT_LATE_REPLY_MS) : 0;
    const delay = kind === "reply" ? this.options.ackDelayMs + late : 0;
    if (delay <= 0) {
      this.pace(frame);
      return;
    }
    const timer = this.clock.setTimer(delay, () => {
      this.pending.delete(timer);
      this.pace(frame);
    });
    this.pending.add(timer);
  }

  /** With --baud, a frame reaches the host only once its last byte would have left the UART. */
  private pace(frame: Uint8Array): void {
    const delivered = this.plan.onWire(frame, "to_host");
    const baud = this.options.baud;
    if (baud === undefined) {
      if (delivered) this.write?.(delivered);
      return;
    }
    const now = this.clock.now();
    const done = Math.max(now, this.txFreeAt) + (frame.length * 10 * 1000) / baud;
    this.txFreeAt = done;
    if (!delivered) return;
    const timer = this.clock.setTimer(done - now, () => {
      this.pending.delete(timer);
      this.write?.(delivered);
    });
    this.pending.add(timer);
  }

  private scheduleStatus(): void {
    const period = 1000 / this.options.statusHz;
    this.statusTimer = this.clock.setTimer(period, () => {
      this.statusTimer = undefined;
      if (this.closed) return;
      this.sendStatus();
      this.scheduleStatus();
    });
  }

  private sendStatus(): void {
    if (!this.write || this.arm.isBooting() || this.arm.isStatusFrozen()) return;
    // A firmware skips a STATUS tick rather than queue behind a busy UART.
    if (this.options.baud !== undefined && this.txFreeAt > this.clock.now()) return;
    const status: Message = {
      op: "STATUS",
      seq: this.nextSeq(),
      bootId: this.arm.bootId,
      deviceTimeMs: this.arm.deviceTimeMs(),
      axes: this.arm.samples(),
      faults: this.arm.faults(),
      actions: this.arm.statusActions(),
    };
    this.transmit(encodeFrame(status), "status");
  }
}
