import { ArmbridgeError } from "../../../errors.js";
import type { ByteLink } from "../../link/ByteLink.js";
import { BusChannel, type Answered, type ExchangeOptions, type ReplyShape } from "../BusChannel.js";
import type { BusProtocol, StatusReply } from "../../../protocol/bus/index.js";

/** Every reply a set-up tool asks for: a second one from an id is evidence of a shared id, and a refusal is told apart from silence. */
const SET_UP_REPLIES = { keepDuplicates: true, refusalsAnyLength: true } as const;

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
 * The set-up tools' session on a bus, which knows nothing of an arm: the
 * bus channel the transport uses too, at a known baud that the session may
 * change, each instruction given its own wire time plus a latency margin,
 * every status packet that comes back within it (a second one from an id
 * included: what a scan needs to see two servos answering at once) and a
 * count of bytes that were not a packet. The channel drops a reply later
 * than its instruction's time, after waiting one more latency margin for it
 * before that servo is asked anything else, so it is never read as the
 * answer to the next question. A closed or lost link is an error here.
 */
export class BusExchange {
  readonly link: ByteLink;
  readonly protocol: BusProtocol;
  readonly channel: BusChannel;
  readonly #latencyMarginMs: number;
  #baud: number;

  constructor(link: ByteLink, protocol: BusProtocol, baud: number, options: BusExchangeOptions = {}) {
    this.link = link;
    this.protocol = protocol;
    this.#baud = baud;
    this.#latencyMarginMs = options.latencyMarginMs ?? 40;
    this.channel = new BusChannel(link, protocol, {
      replyTimeoutMs: this.#latencyMarginMs,
      lateMs: this.#latencyMarginMs,
    });
  }

  /** Replies dropped so far because they could not answer the instruction on the wire (late, another id or length). */
  get staleReplies(): number {
    return this.channel.staleReplies;
  }

  /** Stops listening to the link (the link itself stays open). */
  dispose(): void {
    this.channel.dispose();
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
    const packetBytes = this.protocol.ping(id).length;
    return this.#asked(
      this.channel.ping(id, {
        ...this.#each(signal, this.replyTimeoutMs(packetBytes, 3)),
        expect: { length: this.pingReplyLength, ...SET_UP_REPLIES },
      }),
      signal,
    );
  }

  read(id: number, address: number, length: number, signal?: AbortSignal): Promise<Exchanged> {
    const packetBytes = this.protocol.read(id, address, length).length;
    return this.#asked(
      this.channel.read(
        id,
        { address, size: length },
        {
          ...this.#each(signal, this.replyTimeoutMs(packetBytes, length)),
          expect: SET_UP_REPLIES,
        },
      ),
      signal,
    );
  }

  write(id: number, address: number, data: Uint8Array, signal?: AbortSignal): Promise<Exchanged> {
    const packetBytes = this.protocol.write(id, address, data).length;
    return this.#asked(
      this.channel.write(id, { address, size: data.length }, data, {
        ...this.#each(signal, this.replyTimeoutMs(packetBytes, 0)),
        expect: SET_UP_REPLIES,
      }),
      signal,
    );
  }

  /**
   * Sends one instruction and collects the status packets that can answer
   * it (`expect`: which ids, how many data bytes) until each expected id
   * answered (ids "any": until `timeoutMs`, for a broadcast ping) or the
   * time is up. Anything else that arrives is dropped (`staleReplies`).
   */
  transact(
    packet: Uint8Array,
    options: { readonly expect: ReplyShape; readonly timeoutMs: number; readonly signal?: AbortSignal | undefined },
  ): Promise<Exchanged> {
    return this.#asked(
      this.channel.exchange(packet, options.expect, this.#each(options.signal, options.timeoutMs)),
      options.signal,
    );
  }

  #each(signal: AbortSignal | undefined, timeoutMs: number): ExchangeOptions {
    if (!this.link.isOpen)
      throw new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "the link is closed" });
    signal?.throwIfAborted();
    return { priority: "command", timeoutMs, signal, watchClose: true };
  }

  async #asked(answer: Promise<Answered>, signal: AbortSignal | undefined): Promise<Exchanged> {
    const r = await answer;
    if (r.lost)
      throw new ArmbridgeError(
        "ARMB_ERR_LINK_LOST",
        { link: this.link.url, reason: r.lost.message },
        { cause: r.lost },
      );
    if (!r.sent) throw new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "the link is closed" });
    signal?.throwIfAborted();
    return { replies: r.replies, garbledBytes: r.garbledBytes };
  }
}
