import { ArmbridgeError } from "../../../errors.js";
import type { ByteLink } from "../../link/ByteLink.js";
import { BusReplies, type ReplyShape } from "../BusReplies.js";
import type { BusProtocol, StatusReply } from "../../../protocol/bus/index.js";

/** What came back for one instruction: the status packets, and the bytes that made no packet (noise, collisions). */
export interface Exchanged {
  readonly replies: readonly StatusReply[];
  readonly garbledBytes: number;
}

export interface BusExchangeOptions {
  /**
   * Added to every reply's wire time before a reply counts as missing (ms).
   * Default 40: a USB adapter whose latency timer is at the FTDI default
   * holds received bytes up to 16 ms (DynamixelSDK allows twice that).
   */
  readonly latencyMarginMs?: number;
}

/**
 * The set-up tools' own way onto a bus: one instruction at a time on an
 * open link at a known baud, every status packet that comes back within the
 * instruction's time, and a count of bytes that were not a packet — what a
 * scan needs to see two servos answering at once. (The transport's
 * BusChannel drives a configured arm; this one knows nothing of an arm.)
 * Replies are matched to their instruction by BusReplies, as the
 * transport's are: a reply later than its instruction's time is waited for
 * (one more latency margin) before that servo is asked anything else, and
 * dropped, so it is never read as the answer to the next question.
 */
export class BusExchange {
  readonly link: ByteLink;
  readonly protocol: BusProtocol;
  readonly #latencyMarginMs: number;
  readonly #replies: BusReplies;
  #baud: number;
  #busy = false;

  constructor(link: ByteLink, protocol: BusProtocol, baud: number, options: BusExchangeOptions = {}) {
    this.link = link;
    this.protocol = protocol;
    this.#baud = baud;
    this.#latencyMarginMs = options.latencyMarginMs ?? 40;
    this.#replies = new BusReplies(link, protocol, { lateMs: this.#latencyMarginMs });
  }

  /** Replies dropped so far because they could not answer the instruction on the wire (late, another id or length). */
  get staleReplies(): number {
    return this.#replies.stale;
  }

  /** Stops listening to the link (the link itself stays open). */
  dispose(): void {
    this.#replies.dispose();
  }

  /** Data bytes of a servo's answer to a ping: Dynamixel 2.0 sends model number and firmware (3), Feetech nothing. */
  get pingReplyLength(): number {
    return this.protocol.table.setup.pingReplyBytes - this.protocol.statusOverhead;
  }

  get baud(): number {
    return this.#baud;
  }

  /** Whether the host can change the line's baud on this link (a device, an RFC 2217 server; not raw TCP). */
  get canSetBaud(): boolean {
    return typeof this.link.setBaudRate === "function";
  }

  async setBaud(baud: number, signal?: AbortSignal): Promise<void> {
    if (baud === this.#baud) return;
    if (!this.link.setBaudRate) {
      throw new ArmbridgeError("ARMB_ERR_LINK_BAUD", {
        link: this.link.url,
        baud,
        reason: `a raw TCP link's baud is set at the server (ser2net raw mode), here ${this.#baud}; use the device path, or an rfc2217:// server, to let armbridge set it`,
      });
    }
    await this.link.setBaudRate(baud, signal);
    this.#baud = baud;
  }

  /** Wire time of `bytes` at the current baud (10 bits a byte), ms. */
  wireMs(bytes: number): number {
    return (bytes * 10 * 1000) / this.#baud;
  }

  /** How long a unicast instruction waits for a reply of `dataBytes`. */
  replyTimeoutMs(requestBytes: number, dataBytes: number): number {
    return this.wireMs(requestBytes + this.protocol.statusOverhead + dataBytes) + this.#latencyMarginMs;
  }

  ping(id: number, signal?: AbortSignal): Promise<Exchanged> {
    const packet = this.protocol.ping(id);
    return this.transact(packet, {
      expect: { ids: [id], length: this.pingReplyLength, keepDuplicates: true, refusalsAnyLength: true },
      timeoutMs: this.replyTimeoutMs(packet.length, 3),
      signal,
    });
  }

  read(id: number, address: number, length: number, signal?: AbortSignal): Promise<Exchanged> {
    const packet = this.protocol.read(id, address, length);
    return this.transact(packet, {
      expect: { ids: [id], length, keepDuplicates: true, refusalsAnyLength: true },
      timeoutMs: this.replyTimeoutMs(packet.length, length),
      signal,
    });
  }

  write(id: number, address: number, data: Uint8Array, signal?: AbortSignal): Promise<Exchanged> {
    const packet = this.protocol.write(id, address, data);
    return this.transact(packet, {
      expect: { ids: [id], length: 0, keepDuplicates: true, refusalsAnyLength: true },
      timeoutMs: this.replyTimeoutMs(packet.length, 0),
      signal,
    });
  }

  /**
   * Sends one instruction and collects the status packets that can answer
   * it (`expect`: which ids, how many data bytes) until each expected id
   * answered (ids "any": until `timeoutMs`, for a broadcast ping) or the
   * time is up. Anything else that arrives is dropped (`staleReplies`).
   */
  async transact(
    packet: Uint8Array,
    options: { readonly expect: ReplyShape; readonly timeoutMs: number; readonly signal?: AbortSignal | undefined },
  ): Promise<Exchanged> {
    if (this.#busy)
      throw new ArmbridgeError("ARMB_ERR_INTERNAL", { reason: "two instructions at once on a half-duplex bus" });
    if (!this.link.isOpen)
      throw new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "the link is closed" });
    options.signal?.throwIfAborted();
    this.#busy = true;
    try {
      const r = await this.#replies.exchange(() => this.link.write(packet), options.expect, options.timeoutMs, {
        signal: options.signal,
        watchClose: true,
      });
      if (r.lost)
        throw new ArmbridgeError(
          "ARMB_ERR_LINK_LOST",
          { link: this.link.url, reason: r.lost.message },
          { cause: r.lost },
        );
      options.signal?.throwIfAborted();
      return { replies: r.replies, garbledBytes: r.garbledBytes };
    } finally {
      this.#busy = false;
    }
  }
}
