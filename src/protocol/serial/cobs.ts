/**
 * Consistent Overhead Byte Stuffing: rewrites a payload so it contains no
 * 0x00, which then delimits frames on the wire. A receiver that lands in the
 * middle of a frame (garbage, a dropped byte, a reconnect) resynchronises at
 * the next 0x00, losing at most one frame. Overhead: one byte per 254, plus one.
 */

/** Encodes `payload`; the result contains no 0x00 and does not include the delimiter. */
export function cobsEncode(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + Math.ceil(payload.length / 254) + 1);
  let codeIndex = 0;
  let code = 1;
  let o = 1;
  for (const byte of payload) {
    if (byte === 0) {
      out[codeIndex] = code;
      codeIndex = o++;
      code = 1;
    } else {
      out[o++] = byte;
      code++;
      if (code === 0xff) {
        out[codeIndex] = code;
        codeIndex = o++;
        code = 1;
      }
    }
  }
  out[codeIndex] = code;
  return out.subarray(0, o);
}

/**
 * Decodes one COBS block (without its delimiter). Returns undefined when the
 * block is not valid COBS (a 0x00 inside, or a code that runs past the end):
 * the caller treats that as a damaged frame, never as an exception.
 */
export function cobsDecode(encoded: Uint8Array): Uint8Array | undefined {
  const out = new Uint8Array(encoded.length);
  let o = 0;
  let i = 0;
  while (i < encoded.length) {
    const code = encoded[i] ?? 0;
    if (code === 0) return undefined;
    if (i + code > encoded.length) return undefined;
    for (let k = 1; k < code; k++) {
      const byte = encoded[i + k] ?? 0;
      if (byte === 0) return undefined;
      out[o++] = byte;
    }
    i += code;
    // A 0xFF block carries no implied zero; neither does the last block.
    if (code !== 0xff && i < encoded.length) out[o++] = 0;
  }
  return out.subarray(0, o);
}
