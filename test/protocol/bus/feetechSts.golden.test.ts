import { describe, expect, it } from "vitest";
import { encodeStsStatus, sts, StsDecoder, stsStatusOf } from "../../../src/protocol/bus/feetechSts/index.js";
import { decodeRegister, encodeRegister, register, signMagnitude } from "../../../src/protocol/bus/index.js";

const hex = (s: string): Uint8Array =>
  Uint8Array.from(
    s.trim() === ""
      ? []
      : s
          .trim()
          .split(/\s+/)
          .map((b) => parseInt(b, 16)),
  );

/**
 * Golden packets from Feetech's FT-SCS protocol manual examples
 * (http://doc.feetech.cn/#/prodinfodownload?srcType=FT-SCS-Protocol-41ad23fe8a244712ba160b93):
 * PING id 1, READ of Present_Position (0x38, 2 bytes), WRITE of Goal_Position
 * 2048 / time 0 / speed 1000 from 0x2A — little-endian words on STS.
 */
describe("Feetech STS against the manual's packets", () => {
  it.each([
    ["ping id 1", sts.ping(1), "FF FF 01 02 01 FB"],
    ["read id 1, Present_Position (0x38), 2 bytes", sts.read(1, 0x38, 2), "FF FF 01 04 02 38 02 BE"],
    [
      "write id 1 from 0x2A: position 2048, time 0, speed 1000",
      sts.write(1, 0x2a, hex("00 08 00 00 E8 03")),
      "FF FF 01 09 03 2A 00 08 00 00 E8 03 D5",
    ],
  ])("encodes %s", (_name, packet, golden) => {
    expect(Buffer.from(packet).toString("hex")).toBe(Buffer.from(hex(golden)).toString("hex"));
  });

  it.each([
    ["ping reply", "FF FF 01 02 00 FC", { id: 1, error: 0, data: "" }],
    ["read reply: position 0x0518", "FF FF 01 04 00 18 05 DD", { id: 1, error: 0, data: "18 05" }],
  ])("decodes and re-encodes the %s", (_name, golden, expected) => {
    const packets = new StsDecoder().push(hex(golden));
    expect(packets).toHaveLength(1);
    const status = stsStatusOf(packets[0]!);
    expect(status).toMatchObject({ id: expected.id, error: expected.error });
    expect(Buffer.from(status.data).toString("hex")).toBe(Buffer.from(hex(expected.data)).toString("hex"));
    expect(
      Buffer.from(encodeStsStatus(expected.id, expected.error, hex(expected.data))).equals(Buffer.from(hex(golden))),
    ).toBe(true);
  });

  it("builds sync read / sync write as the SDK does: broadcast id, address, length, then ids (and data)", () => {
    const read = sts.syncRead(56, 2, [1, 2]);
    expect([...read.subarray(0, 9)]).toEqual([0xff, 0xff, 0xfe, 0x06, 0x82, 56, 2, 1, 2]);
    const write = sts.syncWrite(42, 2, [
      { id: 1, data: hex("00 08") },
      { id: 2, data: hex("FF 0F") },
    ]);
    expect([...write.subarray(0, write.length - 1)]).toEqual([
      0xff, 0xff, 0xfe, 0x0a, 0x83, 42, 2, 1, 0x00, 0x08, 2, 0xff, 0x0f,
    ]);
    const [decoded] = new StsDecoder().push(write);
    expect(decoded).toMatchObject({ id: 0xfe, code: 0x83 });
  });

  it("encodes sign-magnitude velocities the way LeRobot's table says (bit 15)", () => {
    const velocity = register(58, 2, signMagnitude(15));
    expect([...encodeRegister(velocity, -100)]).toEqual([100, 0x80]);
    expect(decodeRegister(velocity, Uint8Array.from([100, 0x80]))).toBe(-100);
    expect(decodeRegister(register(31, 2, signMagnitude(11)), Uint8Array.from([0x00, 0x08 | 0x01]))).toBe(-256);
  });
});
