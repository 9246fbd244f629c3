import type { BusPacket, StatusReply } from "../BusPacket.js";
import { ResyncDecoder, type Framing } from "../ResyncDecoder.js";
import { crc16Dynamixel } from "./crc16.js";

/**
 * Dynamixel Protocol 2.0 packets (ROBOTIS e-Manual, Protocol 2.0:
 * https://emanual.robotis.com/docs/en/dxl/protocol2/):
 *
 *   FF FF FD 00 | ID | LEN_L LEN_H | INST | PARAM… | CRC_L CRC_H
 *
 * LEN counts INST, the (stuffed) parameters and the CRC. Byte stuffing: in
 * the instruction and parameters, every FF FF FD gets an extra FD after it,
 * so a header can never appear inside a packet; the CRC covers the stuffed
 * bytes. A status packet is INST 0x55 followed by the error byte and data.
 */
export const DXL2_HEADER = [0xff, 0xff, 0xfd, 0x00] as const;
export const DXL2_BROADCAST_ID = 0xfe;
export const DXL2_STATUS = 0x55;
/** Bytes of a packet besides its parameters: header 4, id 1, length 2, instruction 1, CRC 2. */
export const DXL2_OVERHEAD = 10;
/** Largest LEN we accept from the wire; real replies are far smaller, and garbage must not make us wait for 64 KiB. */
export const DXL2_MAX_LENGTH = 1024;

export const DXL2_INSTRUCTION = {
  ping: 0x01,
  read: 0x02,
  write: 0x03,
  reboot: 0x08,
  syncRead: 0x82,
  syncWrite: 0x83,
} as const;

/** Inserts FD after every FF FF FD (e-Manual, "Byte Stuffing"). */
export function stuff(body: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const b = body[i] ?? 0;
    out.push(b);
    if (b === 0xfd && i >= 2 && body[i - 1] === 0xff && body[i - 2] === 0xff) out.push(0xfd);
  }
  return Uint8Array.from(out);
}

/** Removes the FD that follows every FF FF FD. */
export function unstuff(body: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const b = body[i] ?? 0;
    out.push(b);
    if (b === 0xfd && i >= 2 && body[i - 1] === 0xff && body[i - 2] === 0xff && body[i + 1] === 0xfd) i++;
  }
  return Uint8Array.from(out);
}

/** A whole packet: `code` is the instruction (0x55 for a status packet), `params` unstuffed. */
export function encodeDxl2Packet(id: number, code: number, params: Uint8Array): Uint8Array {
  // Stuffing looks at the instruction byte too (e-Manual: "Instruction ~ Parameter").
  const body = stuff(Uint8Array.from([code, ...params])).subarray(1);
  const length = body.length + 3;
  const packet = new Uint8Array(7 + 1 + body.length + 2);
  packet.set(DXL2_HEADER, 0);
  packet[4] = id & 0xff;
  packet[5] = length & 0xff;
  packet[6] = (length >> 8) & 0xff;
  packet[7] = code & 0xff;
  packet.set(body, 8);
  const crc = crc16Dynamixel(packet, 0, packet.length - 2);
  packet[packet.length - 2] = crc & 0xff;
  packet[packet.length - 1] = crc >> 8;
  return packet;
}

export function encodeDxl2Status(id: number, error: number, data: Uint8Array): Uint8Array {
  return encodeDxl2Packet(id, DXL2_STATUS, Uint8Array.from([error & 0xff, ...data]));
}

/** A status packet's error byte and data, or undefined when `packet` is not a status packet. */
export function dxl2StatusOf(packet: BusPacket): StatusReply | undefined {
  if (packet.code !== DXL2_STATUS || packet.params.length < 1) return undefined;
  return { id: packet.id, error: packet.params[0] ?? 0, data: packet.params.subarray(1) };
}

const DXL2_FRAMING: Framing = {
  header: DXL2_HEADER,
  lengthKnownAt: 7,
  totalLength(q) {
    const length = q.at(5) | (q.at(6) << 8);
    return length < 3 || length > DXL2_MAX_LENGTH ? undefined : 7 + length;
  },
  parse(bytes) {
    const total = bytes.length;
    const crc = (bytes[total - 2] ?? 0) | ((bytes[total - 1] ?? 0) << 8);
    if (crc !== crc16Dynamixel(bytes, 0, total - 2)) return undefined;
    const code = bytes[7] ?? 0;
    return {
      id: bytes[4] ?? 0,
      code,
      params: unstuff(Uint8Array.from([code, ...bytes.subarray(8, total - 2)])).subarray(1),
    };
  },
};

/** Dynamixel 2.0 packets from a byte stream, resynchronising on garbage. */
export class Dxl2Decoder extends ResyncDecoder {
  constructor() {
    super(DXL2_FRAMING);
  }
}
