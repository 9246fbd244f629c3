import { actionIdProblem } from "./wireLimits.js";

/** [version u8][seq u16 LE][op u8]: the body starts after these. */
export const HEADER_BYTES = 4;

// ignoreBOM keeps a leading U+FEFF, so decoding then re-encoding gives the same bytes (the seq cache compares them).
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes that are not a well-formed body: data for the peer's NACK, never an exception out of the codec. */
export class DecodeProblem extends Error {}

/** A received payload read past its header: each read bounded by the body's end, never past it. */
export class PayloadReader {
  private offset = HEADER_BYTES;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly end: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private take(n: number, what: string): number {
    if (this.offset + n > this.end) throw new DecodeProblem(`body ends inside ${what}`);
    const at = this.offset;
    this.offset += n;
    return at;
  }

  u8(what: string): number {
    return this.view.getUint8(this.take(1, what));
  }

  u16(what: string): number {
    return this.view.getUint16(this.take(2, what), true);
  }

  u32(what: string): number {
    return this.view.getUint32(this.take(4, what), true);
  }

  f32(what: string): number {
    const value = this.view.getFloat32(this.take(4, what), true);
    if (!Number.isFinite(value)) throw new DecodeProblem(`${what} is not a finite number`);
    return value;
  }

  str(what: string): string {
    const length = this.u8(`${what} length`);
    const at = this.take(length, what);
    try {
      return utf8Decoder.decode(this.bytes.subarray(at, at + length));
    } catch {
      throw new DecodeProblem(`${what} is not valid UTF-8`);
    }
  }

  actionId(): string {
    const id = this.str("actionId");
    const problem = actionIdProblem(id);
    if (problem) throw new DecodeProblem(problem);
    return id;
  }

  count(max: number, what: string): number {
    const n = this.u8(`${what} count`);
    if (n > max) throw new DecodeProblem(`${what} count ${n} exceeds ${max}`);
    return n;
  }

  done(): void {
    if (this.offset !== this.end)
      throw new DecodeProblem(`${this.end - this.offset} unexpected byte(s) after the body`);
  }
}
