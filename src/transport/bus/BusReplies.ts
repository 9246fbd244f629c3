import type { ByteLink } from "../link/ByteLink.js";
import type { BusProtocol, PacketDecoder, StatusReply } from "../../protocol/bus/index.js";

/**
 * What can answer one instruction. A status packet carries no instruction
 * or address, only the servo id, its error byte and its data (Dynamixel
 * Protocol 2.0 status packet: header FF FF FD 00, ID, length, 0x55, error,
 * parameters, CRC — https://emanual.robotis.com/docs/en/dxl/protocol2,
 * "Status Packet"; Feetech STS/SCS answers in the Protocol 1.0 layout
 * FF FF, ID, length, error, parameters, ~sum checksum — Feetech's SCServo
 * SDK (SCS.cpp) and https://emanual.robotis.com/docs/en/dxl/protocol1).
 * Neither carries a sequence number. So a reply is matched by who sent it
 * and how many data bytes it has:
 * a read of N bytes is answered with N, a ping with the model and firmware
 * on Dynamixel 2.0 (3 bytes) and nothing on Feetech, a write with nothing.
 */
export interface ReplyShape {
  /** The ids that answer it; "any" for a broadcast ping. */
  readonly ids: readonly number[] | "any";
  /** Data bytes of each reply; undefined accepts any length. */
  readonly length: number | undefined;
  /**
   * Also accept a reply of another length whose error byte says the servo
   * refused the instruction (a Dynamixel 2.0 status error such as Access
   * Error sends no data: e-Manual, Protocol 2.0, Status Packet "Error"), so
   * a refusal is told apart from silence.
   */
  readonly refusalsAnyLength?: boolean;
  /** Keep a second reply from one id (the set-up tools' evidence of a shared id); otherwise it is dropped as stale. */
  readonly keepDuplicates?: boolean;
}

export interface Awaited {
  readonly replies: readonly StatusReply[];
  /** Every expected id answered (always false for "any": it waits the whole time). */
  readonly complete: boolean;
  /**
   * Bytes thrown away as no packet while this instruction waited (noise,
   * collisions). A packet still arriving when the time ran out is not
   * counted: it may be a reply that is merely late, judged when it ends.
   */
  readonly garbledBytes: number;
  /** Set when the link closed while waiting (only when asked to watch for it). */
  readonly lost: Error | undefined;
}

interface Waiting {
  readonly shape: ReplyShape;
  readonly ids: ReadonlySet<number> | undefined;
  readonly replies: StatusReply[];
  readonly answered: Set<number>;
  readonly done: () => void;
}

/**
 * The one place a half-duplex bus's replies are matched to the instruction
 * that asked for them, shared by the transport's BusChannel and the set-up
 * tools' BusExchange. One decoder lives as long as the link, so a reply cut
 * into pieces is whole whichever instruction its bytes straddle. A reply
 * that cannot be the waiting instruction's (another id, another length, or
 * nothing waiting) is dropped and counted in `stale`.
 *
 * A reply can come later than its instruction's time (a loaded host, a
 * network hop, an adapter that holds bytes). Its servo then owes one, and
 * before the next instruction to that servo goes out the bus is drained
 * until the owed reply arrived or `lateMs` passed — otherwise the late
 * reply, of the same length as the next one's, would be read as its answer
 * and every later read of that servo would shift by one.
 */
export class BusReplies {
  readonly #link: ByteLink;
  readonly #protocol: BusProtocol;
  readonly #lateMs: number;
  readonly #decoder: PacketDecoder;
  #waiting: Waiting | undefined;
  /** Servo id → when its late reply stops being waited for (performance.now()). */
  readonly #owed = new Map<number, number>();
  #wake: (() => void) | undefined;
  readonly #unsubscribe: () => void;
  bytesIn = 0;
  /** Replies dropped because they could not answer the instruction waiting (late, repeated, another id or length). */
  stale = 0;

  constructor(link: ByteLink, protocol: BusProtocol, options: { readonly lateMs: number }) {
    this.#link = link;
    this.#protocol = protocol;
    this.#lateMs = options.lateMs;
    this.#decoder = protocol.createDecoder();
    this.#unsubscribe = link.onData((chunk) => this.#onData(chunk));
  }

  dispose(): void {
    this.#unsubscribe();
  }

  /**
   * Sends one instruction (`send` writes it) once the bus is drained for
   * it, and collects what answers it within `timeoutMs`: until every
   * expected id answered, the time is up, `signal` aborts, or (with
   * `watchClose`) the link closes. Ids that did not answer owe a reply.
   */
  async exchange(
    send: () => void,
    shape: ReplyShape,
    timeoutMs: number,
    options: { readonly signal?: AbortSignal | undefined; readonly watchClose?: boolean } = {},
  ): Promise<Awaited> {
    const ids = shape.ids === "any" ? undefined : new Set(shape.ids);
    await this.#drain(ids);
    // Bytes already held (debris of an earlier collision) are the first thrown away: they are not this instruction's garbling.
    const discardedBefore = this.#decoder.discardedBytes + this.#decoder.bufferedBytes;
    const replies: StatusReply[] = [];
    let lost: Error | undefined;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const waiting: Waiting = { shape, ids, replies, answered: new Set(), done: finish };
    if (ids?.size === 0) finish();
    const timer = setTimeout(finish, timeoutMs);
    const offClose = options.watchClose
      ? this.#link.onClose((error) => ((lost = error ?? new Error("closed")), finish()))
      : undefined;
    options.signal?.addEventListener("abort", finish, { once: true });
    this.#waiting = waiting;
    try {
      send();
      await finished;
    } finally {
      this.#waiting = undefined;
      clearTimeout(timer);
      offClose?.();
      options.signal?.removeEventListener("abort", finish);
    }
    const complete = ids !== undefined && [...ids].every((id) => waiting.answered.has(id));
    if (ids && !complete) {
      const until = performance.now() + this.#lateMs;
      for (const id of ids) if (!waiting.answered.has(id)) this.#owed.set(id, until);
    }
    const garbledBytes = Math.max(0, this.#decoder.discardedBytes - discardedBefore);
    return { replies, complete, garbledBytes, lost };
  }

  /**
   * Waits until none of `ids` (undefined: any servo) owes a reply: its late
   * reply arrived (and was dropped), or `lateMs` passed since its
   * instruction's time ran out. Servos that owe nothing cost no wait, so a
   * sweep of silent ids is not slowed.
   */
  async #drain(ids: ReadonlySet<number> | undefined): Promise<void> {
    for (;;) {
      const now = performance.now();
      let until = 0;
      for (const [id, t] of this.#owed) {
        if (t <= now) this.#owed.delete(id);
        else if (ids === undefined || ids.has(id)) until = Math.max(until, t);
      }
      if (until === 0 || !(await this.#nextDataOr(until - now))) return;
    }
  }

  /** Resolves true on the next chunk from the link, false after `ms`. */
  #nextDataOr(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve(false);
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve(true);
      };
    });
  }

  #onData(chunk: Uint8Array): void {
    this.bytesIn += chunk.length;
    for (const packet of this.#decoder.push(chunk)) {
      const reply = this.#protocol.statusOf(packet);
      if (reply) this.#take(reply);
    }
    this.#wake?.();
  }

  #take(reply: StatusReply): void {
    const w = this.#waiting;
    if (!w || !this.#fits(w, reply)) {
      this.stale++;
      this.#owed.delete(reply.id);
      return;
    }
    w.replies.push(reply);
    w.answered.add(reply.id);
    if (w.ids && w.answered.size === w.ids.size) w.done();
  }

  #fits(w: Waiting, reply: StatusReply): boolean {
    if (w.ids && !w.ids.has(reply.id)) return false;
    const refused = w.shape.refusalsAnyLength === true && this.#protocol.statusErrorNames(reply.error).length > 0;
    if (w.shape.length !== undefined && reply.data.length !== w.shape.length && !refused) return false;
    return !w.answered.has(reply.id) || w.shape.keepDuplicates === true;
  }
}
