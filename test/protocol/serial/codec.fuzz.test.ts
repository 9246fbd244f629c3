import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FrameDecoder,
  WIRE_LIMITS,
  decodePayload,
  encodeFrame,
  encodePayload,
  type DecodeResult,
} from "../../../src/protocol/serial/index.js";
import { arbitraryMessage } from "./arbitraryMessage.js";

function okMessages(results: DecodeResult[]): unknown[] {
  return results.flatMap((r) => (r.ok ? [r.message] : []));
}

describe("protocol codec under fuzz", () => {
  it("round-trips every valid message through the wire bytes", () => {
    fc.assert(
      fc.property(arbitraryMessage, (message) => {
        const results = new FrameDecoder().push(encodeFrame(message));
        expect(results).toEqual([{ ok: true, message }]);
      }),
      { numRuns: 2000 },
    );
  });

  it("encodes canonically: re-encoding a decoded payload gives the same bytes (even a leading BOM)", () => {
    fc.assert(
      fc.property(arbitraryMessage, fc.constantFrom("", "\uFEFF", "\uFEFFx"), (message, text) => {
        const withText = message.op === "HELLO_REQ" ? { ...message, hostVersion: text + message.hostVersion } : message;
        const payload = encodePayload(withText);
        const decoded = decodePayload(payload);
        expect(decoded.ok && Buffer.from(encodePayload(decoded.message)).equals(Buffer.from(payload))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it("never throws on arbitrary bytes, in arbitrary chunks, and keeps its buffer bounded", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 600 }), { maxLength: 20 }), (chunks) => {
        const decoder = new FrameDecoder({ maxEncodedBytes: 512 });
        for (const chunk of chunks) {
          const results = decoder.push(chunk);
          for (const r of results) expect(typeof r.ok).toBe("boolean");
          expect(decoder.bufferedBytes).toBeLessThanOrEqual(512);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws in decodePayload on arbitrary payloads", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (payload) => {
        const result = decodePayload(payload);
        if (!result.ok) expect(result.reason).toMatch(/\S/);
      }),
      { numRuns: 5000 },
    );
  });

  it("decodes valid frames that follow garbage, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(arbitraryMessage, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 64 }),
        (garbage, messages, chunkSize) => {
          // The delimiter after the garbage is what a receiver resynchronises on.
          const stream = Buffer.concat([
            Buffer.from(garbage),
            Buffer.from([0]),
            ...messages.map((m) => encodeFrame(m)),
          ]);
          const decoder = new FrameDecoder();
          const results: DecodeResult[] = [];
          for (let i = 0; i < stream.length; i += chunkSize)
            results.push(...decoder.push(stream.subarray(i, i + chunkSize)));
          // Garbage may itself form a valid frame only by fluke (CRC-16); the real frames are always the tail.
          expect(okMessages(results).slice(-messages.length)).toEqual(messages);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("drops an over-long run of bytes and decodes the next frame", () => {
    const decoder = new FrameDecoder();
    const flood = new Uint8Array(WIRE_LIMITS.maxEncodedBytes + 10).fill(0x41);
    const ping = encodeFrame({ op: "PING", seq: 7 });
    const results = [...decoder.push(flood), ...decoder.push(Buffer.concat([Buffer.from([0]), ping]))];
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ ok: false });
    expect(results[1]).toEqual({ ok: true, message: { op: "PING", seq: 7 } });
  });

  it("detects every single-bit flip of a frame", () => {
    fc.assert(
      fc.property(arbitraryMessage, fc.nat(), fc.integer({ min: 0, max: 7 }), (message, at, bit) => {
        const frame = Buffer.from(encodeFrame(message));
        const index = at % (frame.length - 1);
        frame[index] = (frame[index] ?? 0) ^ (1 << bit);
        const results = new FrameDecoder().push(Buffer.concat([frame, Buffer.from([0])]));
        expect(okMessages(results).some((m) => JSON.stringify(m) === JSON.stringify(message))).toBe(false);
      }),
      // A flip that forges a 0x00 splits the frame; a fixed seed keeps a 1-in-65536 CRC fluke from making this flaky.
      { numRuns: 2000, seed: 20240601 },
    );
  });
});
