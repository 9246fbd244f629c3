/** Size limits of protocol v1 (docs/serial-protocol.md, "Limits"). */
export const WIRE_LIMITS = {
  /** Largest payload (header + body + CRC) a peer must accept. */
  maxPayloadBytes: 8192,
  /** Largest encoded frame on the wire, delimiter excluded: COBS adds one byte per 254, plus one. */
  maxEncodedBytes: 8192 + Math.ceil(8192 / 254) + 1,
  /** Action ids: 1..64 bytes of printable ASCII without space (0x21..0x7E). */
  maxActionIdBytes: 64,
  /** Every string is u8-length-prefixed UTF-8. */
  maxStringBytes: 255,
  /** Axes in HELLO / STATUS, targets in MOVE, axes in STOP. */
  maxAxes: 64,
  /** Fault strings in one STATUS. */
  maxFaults: 32,
  /** Action records in one STATUS. */
  maxStatusActions: 32,
} as const;

const ACTION_ID = /^[\x21-\x7e]{1,64}$/;

/** Why `id` cannot be an action id on the wire, or undefined when it can. */
export function actionIdProblem(id: string): string | undefined {
  return ACTION_ID.test(id)
    ? undefined
    : `action id ${JSON.stringify(id.slice(0, 80))} is not 1..64 printable ASCII characters without space`;
}
