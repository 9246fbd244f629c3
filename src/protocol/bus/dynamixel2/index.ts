export { crc16Dynamixel } from "./crc16.js";
export { dxl2 } from "./instructions.js";
export {
  DXL2_BROADCAST_ID,
  DXL2_INSTRUCTION,
  DXL2_STATUS,
  Dxl2Decoder,
  encodeDxl2Packet,
  encodeDxl2Status,
  dxl2StatusOf,
  stuff,
  unstuff,
} from "./packet.js";
export { X_SERIES_TABLE } from "./xSeriesTable.js";
export { dynamixel2Protocol } from "./dynamixel2Protocol.js";
