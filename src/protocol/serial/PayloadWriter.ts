import { crc16CcittFalse } from "./crc.js";
import { WIRE_LIMITS, actionIdProblem } from "./wireLimits.js";

const utf8Encoder = new TextEncoder();

/** A message that cannot be put on the wire: a bug in the caller (codec.ts turns it into ARMB_ERR_FRAME_ENCODE). */
export class EncodeProblem extends Error {}

/** A payload being written: its header and body, each value checked against its wire type, then the CRC. */
export class PayloadWriter {
  private bytes = new Uint8Array(64);
  private view = new DataView(this.bytes.buffer);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n > WIRE_LIMITS.maxPayloadBytes) {
      throw new EncodeProblem(`payload would exceed ${WIRE_LIMITS.maxPayloadBytes} bytes`);
    }
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes);
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(value: number, what: string): void {
    checkUint(value, 0xff, what);
    this.reserve(1);
    this.view.setUint8(this.length, value);
    this.length += 1;
  }

  u16(value: number, what: string): void {
    checkUint(value, 0xffff, what);
    this.reserve(2);
    this.view.setUint16(this.length, value, true);
    this.length += 2;
  }

  u32(value: number, what: string): void {
    checkUint(value, 0xffffffff, what);
    this.reserve(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  f32(value: number, what: string): void {
    if (!Number.isFinite(value)) throw new EncodeProblem(`${what} must be a finite number, got ${value}`);
    if (Math.abs(value) > 3.4028234663852886e38) throw new EncodeProblem(`${what} ${value} does not fit a float32`);
    this.reserve(4);
    this.view.setFloat32(this.length, value, true);
    this.length += 4;
  }

  str(value: string, what: string): void {
    const encoded = utf8Encoder.encode(value);
    if (encoded.length > WIRE_LIMITS.maxStringBytes) {
      throw new EncodeProblem(`${what} is ${encoded.length} bytes of UTF-8; at most ${WIRE_LIMITS.maxStringBytes} fit`);
    }
    this.u8(encoded.length, what);
    this.reserve(encoded.length);
    this.bytes.set(encoded, this.length);
    this.length += encoded.length;
  }

  actionId(value: string): void {
    const problem = actionIdProblem(value);
    if (problem) throw new EncodeProblem(problem);
    this.str(value, "actionId");
  }

  count(n: number, max: number, what: string): void {
    if (n > max) throw new EncodeProblem(`${what}: ${n} entries; at most ${max}`);
    this.u8(n, what);
  }

  finish(): Uint8Array {
    const crc = crc16CcittFalse(this.bytes, 0, this.length);
    this.u16(crc, "crc");
    return this.bytes.slice(0, this.length);
  }
}

function checkUint(value: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new EncodeProblem(`${what} must be an integer in 0..${max}, got ${value}`);
  }
}
