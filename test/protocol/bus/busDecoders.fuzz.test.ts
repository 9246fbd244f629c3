import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { protocolNamed, BUS_PROTOCOLS } from "../../../src/protocol/bus/index.js";

const packetArb = fc.record({
  id: fc.integer({ min: 0, max: 252 }),
  code: fc.integer({ min: 0, max: 255 }),
  params: fc.uint8Array({ maxLength: 60 }),
});

describe.each(BUS_PROTOCOLS)("%s decoder under fuzz", (name) => {
  const protocol = protocolNamed(name);

  it("never throws on arbitrary bytes in arbitrary chunks, and keeps its buffer bounded", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 400 }), { maxLength: 20 }), (chunks) => {
        const decoder = protocol.createDecoder();
        for (const chunk of chunks) {
          decoder.push(chunk);
          expect(decoder.bufferedBytes).toBeLessThanOrEqual(1100);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("resynchronises: a valid status packet after garbage is decoded intact, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        packetArb,
        fc.integer({ min: 1, max: 17 }),
        (garbage, p, chunkSize) => {
          const packet = protocol.status(p.id, p.code & 0x7f, p.params);
          const decoder = protocol.createDecoder();
          // A garbage tail that looks like a header can claim a length that swallows the packets after it
          // (up to 1,031 bytes on Dynamixel, 259 on Feetech); a decoder resynchronises once that claimed span
          // has passed. So the packet repeats past the longest span a header can claim, and one must decode.
          const copies = Math.ceil(1100 / packet.length) + 1;
          const stream = Uint8Array.from([...garbage, ...Array.from({ length: copies }, () => [...packet]).flat()]);
          const out = [];
          for (let i = 0; i < stream.length; i += chunkSize)
            out.push(...decoder.push(stream.subarray(i, i + chunkSize)));
          const hits = out
            .map((q) => protocol.statusOf(q))
            .filter((s) => s && s.id === p.id && Buffer.from(s.data).equals(Buffer.from(p.params)));
          expect(hits.length).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("rejects a packet with any one bit flipped past the header (CRC / checksum)", () => {
    fc.assert(
      fc.property(packetArb, fc.nat(), fc.integer({ min: 0, max: 7 }), (p, where, bit) => {
        const packet = protocol.status(p.id, p.code & 0x7f, p.params);
        const damaged = Uint8Array.from(packet);
        // Not the header: a header hit only shifts where the hunt starts.
        const i = 4 + (where % (damaged.length - 4));
        damaged[i] = (damaged[i] ?? 0) ^ (1 << bit);
        const decoder = protocol.createDecoder();
        const wrong = decoder
          .push(damaged)
          .map((q) => protocol.statusOf(q))
          .filter((s) => s && s.id === p.id && Buffer.from(s.data).equals(Buffer.from(p.params)));
        expect(wrong).toHaveLength(0);
      }),
      { numRuns: 1000 },
    );
  });
});
