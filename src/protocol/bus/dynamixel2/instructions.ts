import { DXL2_BROADCAST_ID, DXL2_INSTRUCTION, encodeDxl2Packet } from "./packet.js";

/**
 * Instruction packets of Protocol 2.0 (ROBOTIS e-Manual, Protocol 2.0,
 * "Instruction Details"): addresses and lengths are 16-bit little-endian.
 * Sync Read and Sync Write go to the broadcast id; Sync Read is answered by
 * one status packet per listed id, in list order; Sync Write by none.
 */
const u16 = (v: number): number[] => [v & 0xff, (v >> 8) & 0xff];

export const dxl2 = {
  ping: (id: number): Uint8Array => encodeDxl2Packet(id, DXL2_INSTRUCTION.ping, new Uint8Array(0)),
  read: (id: number, address: number, length: number): Uint8Array =>
    encodeDxl2Packet(id, DXL2_INSTRUCTION.read, Uint8Array.from([...u16(address), ...u16(length)])),
  write: (id: number, address: number, data: Uint8Array): Uint8Array =>
    encodeDxl2Packet(id, DXL2_INSTRUCTION.write, Uint8Array.from([...u16(address), ...data])),
  reboot: (id: number): Uint8Array => encodeDxl2Packet(id, DXL2_INSTRUCTION.reboot, new Uint8Array(0)),
  syncRead: (address: number, length: number, ids: readonly number[]): Uint8Array =>
    encodeDxl2Packet(
      DXL2_BROADCAST_ID,
      DXL2_INSTRUCTION.syncRead,
      Uint8Array.from([...u16(address), ...u16(length), ...ids]),
    ),
  syncWrite: (
    address: number,
    length: number,
    entries: readonly { readonly id: number; readonly data: Uint8Array }[],
  ): Uint8Array => {
    const params: number[] = [...u16(address), ...u16(length)];
    for (const e of entries) params.push(e.id, ...e.data.subarray(0, length));
    return encodeDxl2Packet(DXL2_BROADCAST_ID, DXL2_INSTRUCTION.syncWrite, Uint8Array.from(params));
  },
};
