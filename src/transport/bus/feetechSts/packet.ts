import { ByteQueue, type BusPacket, type PacketDecoder, type StatusReply } from "../protocol/BusPacket.js";

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

export class StsDecoder implements PacketDecoder {
  readonly #queue = new ByteQueue();
  #discarded = 0;

  get discardedBytes(): number {
    return this.#discarded;
  }

  get bufferedBytes(): number {
    return this.#queue.length;
  }

  push(chunk: Uint8Array): BusPacket[] {
    const q = this.#queue;
    q.append(chunk);
    const out: BusPacket[] = [];
    for (;;) {
      let start = 0;
      while (start + 2 <= q.length && !(q.at(start) === 0xff && q.at(start + 1) === 0xff)) start++;
      if (start + 2 > q.length) {
        this.#skip(q.length - Math.min(1, q.length));
        return out;
      }
      this.#skip(start);
      if (q.length < 4) return out;
      const id = q.at(2);
      const length = q.at(3);
      // FF FF FF…: the id can never be FF, so the real header starts one byte later.
      if (id === 0xff || length < 2) {
        this.#skip(1);
        continue;
      }
      const total = 4 + length;
      if (q.length < total) return out;
      const bytes = q.slice(0, total);
      const code = bytes[4] ?? 0;
      const params = bytes.subarray(5, total - 1);
      if ((bytes[total - 1] ?? 0) !== stsChecksum(id, length, code, params)) {
        this.#skip(1);
        continue;
      }
      q.drop(total);
      out.push({ id, code, params: Uint8Array.from(params) });
    }
  }

  #skip(n: number): void {
    if (n <= 0) return;
    this.#queue.drop(n);
    this.#discarded += n;
  }
}
