import type { BusPacket, StatusReply } from "../BusPacket.js";
import { ResyncDecoder, type Framing } from "../ResyncDecoder.js";

/**
 * Feetech STS/SMS packets (Feetech "FT-SCS communication protocol" manual,
 * http://doc.feetech.cn/#/prodinfodownload?srcType=FT-SCS-Protocol-41ad23fe8a244712ba160b93,
 * and its SDK, ftservo/FTServo_Python scservo_sdk/protocol_packet_handler.py):
 *
 *   FF FF | ID | LEN | INST or ERROR | PARAM… | CHECKSUM
 *
 * LEN = number of parameters + 2; CHECKSUM = ~(ID + LEN + INST + PARAM…) & 0xFF.
 * An instruction and a status packet share this frame: the code byte is
 * the instruction from the host and the error byte from a servo, so which
 * one a packet is depends only on the direction it travels.
 */
export const STS_BROADCAST_ID = 0xfe;
/** Bytes of a packet besides its parameters: header 2, id 1, length 1, code 1, checksum 1. */
export const STS_OVERHEAD = 6;

export const STS_INSTRUCTION = {
  ping: 0x01,
  read: 0x02,
  write: 0x03,
  syncRead: 0x82,
  syncWrite: 0x83,
} as const;

export function stsChecksum(id: number, length: number, code: number, params: Uint8Array): number {
  let sum = id + length + code;
  for (const b of params) sum += b;
  return ~sum & 0xff;
}

export function encodeStsPacket(id: number, code: number, params: Uint8Array): Uint8Array {
  const length = params.length + 2;
  const packet = new Uint8Array(4 + length);
  packet[0] = 0xff;
  packet[1] = 0xff;
  packet[2] = id & 0xff;
  packet[3] = length & 0xff;
  packet[4] = code & 0xff;
  packet.set(params, 5);
  packet[packet.length - 1] = stsChecksum(id & 0xff, length & 0xff, code & 0xff, params);
  return packet;
}

export function encodeStsStatus(id: number, error: number, data: Uint8Array): Uint8Array {
  return encodeStsPacket(id, error, data);
}

/** On the host side every packet from the bus is a status packet: its code byte is the servo's error byte. */
export function stsStatusOf(packet: BusPacket): StatusReply {
  return { id: packet.id, error: packet.code, data: packet.params };
}

const STS_FRAMING: Framing = {
  header: [0xff, 0xff],
  lengthKnownAt: 4,
  totalLength(q) {
    // FF FF FF…: the id can never be FF, so the real header starts one byte later.
    return q.at(2) === 0xff || q.at(3) < 2 ? undefined : 4 + q.at(3);
  },
  parse(bytes) {
    const total = bytes.length;
    const id = bytes[2] ?? 0;
    const code = bytes[4] ?? 0;
    const params = bytes.subarray(5, total - 1);
    if ((bytes[total - 1] ?? 0) !== stsChecksum(id, bytes[3] ?? 0, code, params)) return undefined;
    return { id, code, params: Uint8Array.from(params) };
  },
};

/** Feetech STS packets from a byte stream, resynchronising on garbage. */
export class StsDecoder extends ResyncDecoder {
  constructor() {
    super(STS_FRAMING);
  }
}
