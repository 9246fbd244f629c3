import type { BusProtocol } from "../BusProtocol.js";
import { dxl2 } from "./instructions.js";
import {
  DXL2_BROADCAST_ID,
  DXL2_INSTRUCTION,
  DXL2_OVERHEAD,
  DXL2_STATUS,
  Dxl2Decoder,
  dxl2StatusOf,
  encodeDxl2Status,
} from "./packet.js";
import { X_SERIES_TABLE } from "./xSeriesTable.js";

/**
 * Status packet error byte (e-Manual Protocol 2.0, "Status Packet"): bit 7
 * is the Alert flag (the device has a hardware error; read
 * Hardware_Error_Status), bits 0–6 a protocol error number.
 */
const STATUS_ERRORS: Readonly<Record<number, string>> = {
  1: "result fail",
  2: "instruction error",
  3: "CRC error",
  4: "data range error",
  5: "data length error",
  6: "data limit error",
  7: "access error",
};
const ALERT = 0x80;

export const dynamixel2Protocol: BusProtocol = {
  name: "dynamixel_2",
  broadcastId: DXL2_BROADCAST_ID,
  instructionOverhead: DXL2_OVERHEAD,
  // A status packet carries the error byte besides the instruction (0x55).
  statusOverhead: DXL2_OVERHEAD + 1,
  addressBytes: 2,
  table: X_SERIES_TABLE,
  instructions: { ...DXL2_INSTRUCTION },
  ping: dxl2.ping,
  read: dxl2.read,
  write: dxl2.write,
  syncRead: dxl2.syncRead,
  syncWrite: dxl2.syncWrite,
  reboot: dxl2.reboot,
  status: encodeDxl2Status,
  createDecoder: () => new Dxl2Decoder(),
  statusOf: dxl2StatusOf,
  isInstruction: (packet) => packet.code !== DXL2_STATUS,
  statusErrorNames(error) {
    const n = error & 0x7f;
    return n === 0 ? [] : [STATUS_ERRORS[n] ?? `status error ${n}`];
  },
  hardwareAlert: (error) => (error & ALERT) !== 0,
};
