/**
 * How a control-table register stores its value. Dynamixel X-series use
 * two's complement for signed registers (ROBOTIS e-Manual, X-series control
 * tables); Feetech STS/SMS use sign-magnitude with the sign in a given bit
 * (Homing_Offset bit 11, Goal/Present_Velocity bit 15: LeRobot
 * src/lerobot/motors/feetech/tables.py, STS_SMS_SERIES_ENCODINGS_TABLE,
 * commit 0558acc97b50079ffe184f2e0c4e2a93ed5b7f8f). Both are little-endian
 * on the wire (Feetech's "Endianness" byte at address 2 reads 0 on STS).
 */
export type RegisterEncoding =
  | { readonly kind: "unsigned" }
  | { readonly kind: "twos_complement" }
  | { readonly kind: "sign_magnitude"; readonly signBit: number };

export interface Register {
  readonly address: number;
  readonly size: 1 | 2 | 4;
  readonly encoding: RegisterEncoding;
}

export const unsigned = { kind: "unsigned" } as const;
export const twosComplement = { kind: "twos_complement" } as const;
export const signMagnitude = (signBit: number): RegisterEncoding => ({ kind: "sign_magnitude", signBit });

export function register(address: number, size: 1 | 2 | 4, encoding: RegisterEncoding = unsigned): Register {
  return { address, size, encoding };
}

/** The raw little-endian word for `value` (an integer; out-of-range values are clamped to what the register can hold). */
export function encodeRegister(reg: Register, value: number): Uint8Array {
  const bits = reg.size * 8;
  const v = Math.round(value);
  let raw: number;
  switch (reg.encoding.kind) {
    case "unsigned":
      raw = clamp(v, 0, 2 ** bits - 1);
      break;
    case "twos_complement": {
      const c = clamp(v, -(2 ** (bits - 1)), 2 ** (bits - 1) - 1);
      raw = c < 0 ? 2 ** bits + c : c;
      break;
    }
    case "sign_magnitude": {
      const bit = reg.encoding.signBit;
      const magnitude = clamp(Math.abs(v), 0, 2 ** bit - 1);
      raw = v < 0 ? magnitude + 2 ** bit : magnitude;
      break;
    }
  }
  const out = new Uint8Array(reg.size);
  for (let i = 0; i < reg.size; i++) out[i] = Math.floor(raw / 2 ** (8 * i)) & 0xff;
  return out;
}

/** The value of the register whose bytes start at `offset` in `bytes`; undefined when they are not all there. */
export function decodeRegister(reg: Register, bytes: Uint8Array, offset = 0): number | undefined {
  if (offset < 0 || offset + reg.size > bytes.length) return undefined;
  let raw = 0;
  for (let i = 0; i < reg.size; i++) raw += (bytes[offset + i] ?? 0) * 2 ** (8 * i);
  const bits = reg.size * 8;
  switch (reg.encoding.kind) {
    case "unsigned":
      return raw;
    case "twos_complement":
      return raw >= 2 ** (bits - 1) ? raw - 2 ** bits : raw;
    case "sign_magnitude": {
      const bit = reg.encoding.signBit;
      const magnitude = raw % 2 ** bit;
      return Math.floor(raw / 2 ** bit) % 2 === 1 ? -magnitude : magnitude;
    }
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
