import { cobsDecode } from "./cobs.js";
import { decodePayload, type DecodeResult } from "./codec.js";
import { WIRE_LIMITS } from "./wireLimits.js";

/**
 * Turns a byte stream into decoded frames. Feed it whatever the link
 * delivers (partial frames, several frames, garbage); it never throws, keeps
 * at most `maxEncodedBytes` buffered, and resynchronises on every 0x00. A run
 * of bytes longer than any legal frame is dropped whole and reported once when
 * its delimiter finally arrives, so a babbling line cannot exhaust memory.
 */
export class FrameDecoder {
  private readonly buffer: Uint8Array;
  private length = 0;
  private overflowed = false;

  constructor(options: { readonly maxEncodedBytes?: number } = {}) {
    this.buffer = new Uint8Array(options.maxEncodedBytes ?? WIRE_LIMITS.maxEncodedBytes);
  }

  /** Bytes held while waiting for a delimiter. */
  get bufferedBytes(): number {
    return this.length;
  }

  /** Forgets a partial frame, e.g. after the link reconnects. */
  reset(): void {
    this.length = 0;
    this.overflowed = false;
  }

  push(chunk: Uint8Array): DecodeResult[] {
    const results: DecodeResult[] = [];
    let start = 0;
    while (start < chunk.length) {
      const zero = chunk.indexOf(0, start);
      const stop = zero === -1 ? chunk.length : zero;
      this.append(chunk, start, stop);
      if (zero === -1) break;
      const result = this.endFrame();
      if (result) results.push(result);
      start = zero + 1;
    }
    return results;
  }

  private append(chunk: Uint8Array, from: number, to: number): void {
    if (this.overflowed || to <= from) return;
    if (this.length + (to - from) > this.buffer.length) {
      this.overflowed = true;
      this.length = 0;
      return;
    }
    this.buffer.set(chunk.subarray(from, to), this.length);
    this.length += to - from;
  }

  private endFrame(): DecodeResult | undefined {
    if (this.overflowed) {
      this.overflowed = false;
      return { ok: false, reason: `frame longer than ${this.buffer.length} encoded bytes dropped` };
    }
    // Back-to-back delimiters are legal padding (a sender may flush the line with 0x00).
    if (this.length === 0) return undefined;
    const payload = cobsDecode(this.buffer.subarray(0, this.length));
    this.length = 0;
    if (!payload) return { ok: false, reason: "frame is not valid COBS" };
    return decodePayload(payload);
  }
}
