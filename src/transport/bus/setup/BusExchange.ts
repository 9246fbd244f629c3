import { ArmbridgeError } from "../../../errors.js";
import type { ByteLink } from "../../link/ByteLink.js";
import type { BusProtocol, StatusReply } from "../protocol/index.js";

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
 */
export class BusExchange {
  readonly link: ByteLink;
  readonly protocol: BusProtocol;
  readonly #latencyMarginMs: number;
  #baud: number;
  #busy = false;

  constructor(link: ByteLink, protocol: BusProtocol, baud: number, options: BusExchangeOptions = {}) {
    this.link = link;
    this.protocol = protocol;
    this.#baud = baud;
    this.#latencyMarginMs = options.latencyMarginMs ?? 40;
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
      throw new ArmbridgeError("ARMB_ERR_LINK_BAUD", { link: this.link.url, baud, reason: `a raw TCP link's baud is set at the server (ser2net raw mode), here ${this.#baud}; use the device path, or an rfc2217:// server, to let armbridge set it` });
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
    return this.transact(packet, { expect: 1, timeoutMs: this.replyTimeoutMs(packet.length, 3), signal });
  }

  read(id: number, address: number, length: number, signal?: AbortSignal): Promise<Exchanged> {
    const packet = this.protocol.read(id, address, length);
    return this.transact(packet, { expect: 1, timeoutMs: this.replyTimeoutMs(packet.length, length), signal });
  }

  write(id: number, address: number, data: Uint8Array, signal?: AbortSignal): Promise<Exchanged> {
    const packet = this.protocol.write(id, address, data);
    return this.transact(packet, { expect: 1, timeoutMs: this.replyTimeoutMs(packet.length, 0), signal });
  }

  /**
   * Sends one instruction and collects status packets until `expect` of
   * them arrived (undefined: until `timeoutMs`, for a broadcast ping) or the
   * time is up. Bytes from before the instruction are dropped.
   */
  async transact(packet: Uint8Array, options: { readonly expect: number | undefined; readonly timeoutMs: number; readonly signal?: AbortSignal | undefined }): Promise<Exchanged> {
    if (this.#busy) throw new ArmbridgeError("ARMB_ERR_INTERNAL", { reason: "two instructions at once on a half-duplex bus" });
    if (!this.link.isOpen) throw new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: "the link is closed" });
    options.signal?.throwIfAborted();
    this.#busy = true;
    const decoder = this.protocol.createDecoder();
    const replies: StatusReply[] = [];
    let finish: (lost?: Error) => void = () => undefined;
    const finished = new Promise<Error | undefined>((resolve) => (finish = resolve));
    const offData = this.link.onData((chunk) => {
      for (const p of decoder.push(chunk)) {
        const reply = this.protocol.statusOf(p);
        if (reply) replies.push(reply);
      }
      if (options.expect !== undefined && replies.length >= options.expect) finish();
    });
    const offClose = this.link.onClose((error) => finish(error ?? new Error("closed")));
    const timer = setTimeout(() => finish(), options.timeoutMs);
    const onAbort = (): void => finish();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      this.link.write(packet);
      const lost = await finished;
      if (lost) throw new ArmbridgeError("ARMB_ERR_LINK_LOST", { link: this.link.url, reason: lost.message }, { cause: lost });
      options.signal?.throwIfAborted();
      return { replies, garbledBytes: decoder.discardedBytes + decoder.bufferedBytes };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      offData();
      offClose();
      this.#busy = false;
    }
  }
}
