/**
 * One packet on a half-duplex servo bus, as the framing layer sees it: the
 * servo id, the code byte that follows the length (an instruction from the
 * host; on Dynamixel 2.0 the 0x55 status marker from a servo, on Feetech the
 * servo's error byte) and the parameter bytes with any byte stuffing undone.
 */
export interface BusPacket {
  readonly id: number;
  readonly code: number;
  readonly params: Uint8Array;
}

/** A stream decoder: bytes in any chunking, whole checked packets out. Never throws; resynchronises on garbage. */
export interface PacketDecoder {
  push(chunk: Uint8Array): BusPacket[];
  /** Bytes skipped so far while hunting for a valid packet (noise, damaged packets). */
  readonly discardedBytes: number;
  /** Bytes held while a packet is incomplete; bounded by the protocol's largest packet. */
  readonly bufferedBytes: number;
}

/** A servo's answer to an instruction: its id, error byte and data. */
export interface StatusReply {
  readonly id: number;
  readonly error: number;
  readonly data: Uint8Array;
}

/** Growable byte buffer shared by the decoders: append, peek, consume from the front. */
export class ByteQueue {
  #bytes = new Uint8Array(256);
  #start = 0;
  #end = 0;

  get length(): number {
    return this.#end - this.#start;
  }

  at(i: number): number {
    return this.#bytes[this.#start + i] ?? 0;
  }

  slice(from: number, to: number): Uint8Array {
    return this.#bytes.slice(this.#start + from, this.#start + to);
  }

  append(chunk: Uint8Array): void {
    if (this.#end + chunk.length > this.#bytes.length) {
      const needed = this.length + chunk.length;
      const next = new Uint8Array(Math.max(needed * 2, 256));
      next.set(this.#bytes.subarray(this.#start, this.#end));
      this.#bytes = next;
      this.#end -= this.#start;
      this.#start = 0;
    }
    this.#bytes.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  drop(n: number): void {
    this.#start = Math.min(this.#end, this.#start + n);
    if (this.#start === this.#end) this.#start = this.#end = 0;
  }
}
