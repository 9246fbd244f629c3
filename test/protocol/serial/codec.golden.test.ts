import { describe, expect, it } from "vitest";
import {
  FrameDecoder,
  PROTOCOL_VERSION,
  cobsDecode,
  cobsEncode,
  crc16CcittFalse,
  decodePayload,
  encodeFrame,
  encodePayload,
} from "../../../src/protocol/serial/index.js";
import { VECTORS } from "./goldenVectors.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("protocol v1 golden vectors", () => {
  it("are for this protocol version", () => {
    expect(VECTORS.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(VECTORS.valid.length).toBeGreaterThanOrEqual(10);
  });

  it("CRC-16/CCITT-FALSE has its catalogued check value", () => {
    expect(crc16CcittFalse(new TextEncoder().encode(VECTORS.crcCheck.input)).toString(16)).toBe(
      VECTORS.crcCheck.crc16CcittFalse,
    );
  });

  it.each(VECTORS.valid.map((v) => [v.name, v] as const))("encodes %s to the golden bytes", (_name, vector) => {
    expect(hex(encodePayload(vector.message))).toBe(vector.payloadHex);
    expect(encodeFrame(vector.message).toString("hex")).toBe(vector.hex);
  });

  it.each(VECTORS.valid.map((v) => [v.name, v] as const))(
    "decodes the golden bytes of %s to its value",
    (_name, vector) => {
      expect(new FrameDecoder().push(Buffer.from(vector.hex, "hex"))).toEqual([{ ok: true, message: vector.message }]);
      expect(decodePayload(Buffer.from(vector.payloadHex, "hex"))).toEqual({ ok: true, message: vector.message });
    },
  );

  it.each(VECTORS.invalid.map((v) => [v.name, v] as const))("refuses %s without throwing", (_name, vector) => {
    const results = new FrameDecoder().push(Buffer.from(vector.hex, "hex"));
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ ok: false });
    // Only a frame whose CRC held may be answered (NACK): its seq is then trustworthy.
    expect(results[0]!.ok === false ? results[0]!.seq : "decoded").toBe(vector.trustedSeq ?? undefined);
  });

  it("decodes all golden frames streamed back to back, one byte at a time", () => {
    const stream = Buffer.concat([...VECTORS.invalid, ...VECTORS.valid].map((v) => Buffer.from(v.hex, "hex")));
    const decoder = new FrameDecoder();
    const messages = [];
    for (const byte of stream) for (const r of decoder.push(Uint8Array.of(byte))) if (r.ok) messages.push(r.message);
    expect(messages).toEqual(VECTORS.valid.map((v) => v.message));
  });
});

describe("COBS", () => {
  // The worked examples of Cheshire & Baker's paper (as catalogued on Wikipedia).
  it.each([
    ["00", "0101"],
    ["0000", "010101"],
    ["001100", "01021101"],
    ["11220033", "0311220233"],
    ["11223344", "0511223344"],
    ["11000000", "0211010101"],
  ])("encodes %s as %s and back", (plain, encoded) => {
    expect(hex(cobsEncode(Buffer.from(plain, "hex")))).toBe(encoded);
    expect(hex(cobsDecode(Buffer.from(encoded, "hex"))!)).toBe(plain);
  });

  it("handles 254- and 255-byte runs without zeros", () => {
    for (const n of [253, 254, 255, 508, 509]) {
      const plain = Uint8Array.from({ length: n }, (_, i) => (i % 255) + 1);
      const encoded = cobsEncode(plain);
      expect(encoded.includes(0)).toBe(false);
      expect(hex(cobsDecode(encoded)!)).toBe(hex(plain));
    }
  });
});

describe("encoding refuses what cannot go on the wire", () => {
  it.each([
    [
      "an action id with a space",
      { op: "MOVE", seq: 1, actionId: "a b", expectBootId: 1, speed: 1, durationMs: 0, targets: [] },
    ],
    ["a 65-byte action id", { op: "QUERY_ACTION", seq: 1, actionId: "x".repeat(65), voidIfUnknown: false }],
    ["a seq beyond u16", { op: "PING", seq: 70000 }],
    [
      "an expectBootId of 0 (boot ids are never 0)",
      {
        op: "MOVE",
        seq: 1,
        actionId: "a",
        expectBootId: 0,
        speed: 1,
        durationMs: 0,
        targets: [{ axis: 0, position: 0 }],
      },
    ],
    [
      "a NaN target",
      {
        op: "MOVE",
        seq: 1,
        actionId: "a",
        expectBootId: 1,
        speed: 1,
        durationMs: 0,
        targets: [{ axis: 0, position: Number.NaN }],
      },
    ],
    ["a 256-byte string", { op: "HELLO_REQ", seq: 1, hostVersion: "é".repeat(128) }],
    ["65 targets", { op: "STOP", seq: 1, axes: Array.from({ length: 65 }, () => 0) }],
  ] as const)("%s → ARMB_ERR_FRAME_ENCODE", (_name, message) => {
    expect(() => encodeFrame(message as never)).toThrow(expect.objectContaining({ code: "ARMB_ERR_FRAME_ENCODE" }));
  });
});
