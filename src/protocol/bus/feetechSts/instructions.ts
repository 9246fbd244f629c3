import { encodeStsPacket, STS_BROADCAST_ID, STS_INSTRUCTION } from "./packet.js";

/**
 * Feetech instruction packets: addresses and lengths are one byte each (the
 * control table ends below 0x100). Sync Read (0x82) is answered by one status
 * packet per listed id, in list order; Sync Write (0x83) by none
 * (scservo_sdk group_sync_read.py / group_sync_write.py).
 */
export const sts = {
  ping: (id: number): Uint8Array => encodeStsPacket(id, STS_INSTRUCTION.ping, new Uint8Array(0)),
  read: (id: number, address: number, length: number): Uint8Array =>
    encodeStsPacket(id, STS_INSTRUCTION.read, Uint8Array.from([address, length])),
  write: (id: number, address: number, data: Uint8Array): Uint8Array =>
    encodeStsPacket(id, STS_INSTRUCTION.write, Uint8Array.from([address, ...data])),
  syncRead: (address: number, length: number, ids: readonly number[]): Uint8Array =>
    encodeStsPacket(STS_BROADCAST_ID, STS_INSTRUCTION.syncRead, Uint8Array.from([address, length, ...ids])),
  syncWrite: (
    address: number,
    length: number,
    entries: readonly { readonly id: number; readonly data: Uint8Array }[],
  ): Uint8Array => {
    const params: number[] = [address, length];
    for (const e of entries) params.push(e.id, ...e.data.subarray(0, length));
    return encodeStsPacket(STS_BROADCAST_ID, STS_INSTRUCTION.syncWrite, Uint8Array.from(params));
  },
};
