import { describe, expect, it } from "vitest";
import {
  crc16Dynamixel,
  Dxl2Decoder,
  dxl2,
  dxl2StatusOf,
  encodeDxl2Status,
  stuff,
  unstuff,
} from "../../../src/protocol/bus/dynamixel2/index.js";
import { decodeRegister, register, twosComplement } from "../../../src/protocol/bus/index.js";

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
 * Golden packets from the ROBOTIS e-Manual, Protocol 2.0
 * (https://emanual.robotis.com/docs/en/dxl/protocol2/), "Instruction
 * Details" examples: they pin header, length, little-endian fields,
 * CRC-16 (poly 0x8005) and the status packet layout at once.
 */
const INSTRUCTIONS: [string, Uint8Array, string][] = [
  ["ping id 1", dxl2.ping(1), "FF FF FD 00 01 03 00 01 19 4E"],
  ["read id 1, Present_Position (132), 4 bytes", dxl2.read(1, 132, 4), "FF FF FD 00 01 07 00 02 84 00 04 00 1D 15"],
  [
    "write id 1, Goal_Position (116) = 512",
    dxl2.write(1, 116, Uint8Array.from([0x00, 0x02, 0x00, 0x00])),
    "FF FF FD 00 01 09 00 03 74 00 00 02 00 00 CA 89",
  ],
  ["reboot id 1", dxl2.reboot(1), "FF FF FD 00 01 03 00 08 2F 4E"],
  [
    "sync read ids 1, 2, Present_Position (132), 4 bytes",
    dxl2.syncRead(132, 4, [1, 2]),
    "FF FF FD 00 FE 09 00 82 84 00 04 00 01 02 CE FA",
  ],
  [
    "sync write Goal_Position id 1 = 150, id 2 = 170",
    dxl2.syncWrite(116, 4, [
      { id: 1, data: Uint8Array.from([0x96, 0, 0, 0]) },
      { id: 2, data: Uint8Array.from([0xaa, 0, 0, 0]) },
    ]),
    "FF FF FD 00 FE 11 00 83 74 00 04 00 01 96 00 00 00 02 AA 00 00 00 82 87",
  ],
];

const STATUSES: [string, string, { id: number; error: number; data: string }][] = [
  [
    "ping reply: model 1030, firmware 38",
    "FF FF FD 00 01 07 00 55 00 06 04 26 65 5D",
    { id: 1, error: 0, data: "06 04 26" },
  ],
  [
    "read reply: Present_Position 166",
    "FF FF FD 00 01 08 00 55 00 A6 00 00 00 8C C0",
    { id: 1, error: 0, data: "A6 00 00 00" },
  ],
  [
    "sync read reply of id 2: 2079",
    "FF FF FD 00 02 08 00 55 00 1F 08 00 00 BA BE",
    { id: 2, error: 0, data: "1F 08 00 00" },
  ],
  ["write reply (no data)", "FF FF FD 00 01 04 00 55 00 A1 0C", { id: 1, error: 0, data: "" }],
];

describe("Dynamixel Protocol 2.0 against the e-Manual's packets", () => {
  it.each(INSTRUCTIONS)("encodes %s", (_name, packet, golden) => {
    expect(Buffer.from(packet).toString("hex")).toBe(Buffer.from(hex(golden)).toString("hex"));
  });

  it.each(STATUSES)("decodes and re-encodes the %s", (_name, golden, expected) => {
    const packets = new Dxl2Decoder().push(hex(golden));
    expect(packets).toHaveLength(1);
    const status = dxl2StatusOf(packets[0]!);
    expect(status).toMatchObject({ id: expected.id, error: expected.error });
    expect(Buffer.from(status!.data).toString("hex")).toBe(Buffer.from(hex(expected.data)).toString("hex"));
    expect(
      Buffer.from(encodeDxl2Status(expected.id, expected.error, hex(expected.data))).equals(Buffer.from(hex(golden))),
    ).toBe(true);
  });

  it("computes the CRC the e-Manual's packets carry", () => {
    const packet = hex("FF FF FD 00 01 03 00 01 19 4E");
    expect(crc16Dynamixel(packet, 0, packet.length - 2)).toBe(0x4e19);
  });

  it("stuffs FF FF FD in parameters and undoes it on decode (e-Manual, Byte Stuffing)", () => {
    const params = Uint8Array.from([0x01, 0xff, 0xff, 0xfd, 0x02]);
    expect([...stuff(params)]).toEqual([0x01, 0xff, 0xff, 0xfd, 0xfd, 0x02]);
    expect([...unstuff(stuff(params))]).toEqual([...params]);
    const packet = dxl2.write(3, 116, Uint8Array.from([0xff, 0xff, 0xfd, 0x00]));
    const [decoded] = new Dxl2Decoder().push(packet);
    expect([...decoded!.params]).toEqual([116, 0, 0xff, 0xff, 0xfd, 0x00]);
  });

  it("reads a negative Present_Position as two's complement", () => {
    expect(decodeRegister(register(132, 4, twosComplement), hex("FF FF FF FF"))).toBe(-1);
  });
});
