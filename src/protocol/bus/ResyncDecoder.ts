import { ByteQueue, type BusPacket, type PacketDecoder } from "./BusPacket.js";

/** What a protocol's frame looks like to a decoder that hunts for it. */
export interface Framing {
  /** The bytes every packet starts with. */
  readonly header: readonly number[];
  /** Bytes from the header's start that must be buffered before `totalLength` can be asked. */
  readonly lengthKnownAt: number;
  /**
   * Bytes of the whole packet starting at the queue's front, from its length
   * field; undefined when the fields cannot belong to a packet (a length out
   * of range, an impossible id): the header was noise.
   */
  totalLength(queue: ByteQueue): number | undefined;
  /** The packet in exactly these bytes, or undefined when its CRC or checksum fails. */
  parse(bytes: Uint8Array): BusPacket | undefined;
}

/**
 * The one hunt-and-resync loop of the bus decoders: find a header, read the
 * length, wait for the whole packet, check it; on any failure drop one byte
 * and hunt again, so a packet after garbage (or after a header whose length
 * claimed more bytes than were sent) is still found. Never throws; holds at
 * most one claimed packet plus a partial header.
 */
export class ResyncDecoder implements PacketDecoder {
  readonly #queue = new ByteQueue();
  readonly #framing: Framing;
  #discarded = 0;

  constructor(framing: Framing) {
    this.#framing = framing;
  }

  get discardedBytes(): number {
    return this.#discarded;
  }

  get bufferedBytes(): number {
    return this.#queue.length;
  }

  push(chunk: Uint8Array): BusPacket[] {
    const q = this.#queue;
    const f = this.#framing;
    const h = f.header;
    q.append(chunk);
    const out: BusPacket[] = [];
    for (;;) {
      let start = 0;
      while (start + h.length <= q.length && !h.every((b, i) => q.at(start + i) === b)) start++;
      if (start + h.length > q.length) {
        // No header: keep what could be the start of one.
        this.#skip(q.length - Math.min(h.length - 1, q.length));
        return out;
      }
      this.#skip(start);
      if (q.length < f.lengthKnownAt) return out;
      const total = f.totalLength(q);
      if (total === undefined) {
        this.#skip(1);
        continue;
      }
      if (q.length < total) return out;
      const packet = f.parse(q.slice(0, total));
      if (!packet) {
        this.#skip(1);
        continue;
      }
      q.drop(total);
      out.push(packet);
    }
  }

  #skip(n: number): void {
    if (n <= 0) return;
    this.#queue.drop(n);
    this.#discarded += n;
  }
}
