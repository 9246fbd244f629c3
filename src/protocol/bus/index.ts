export type { BusPacket, PacketDecoder, StatusReply } from "./BusPacket.js";
export {
  BUS_PROTOCOLS,
  hardwareErrorNames,
  statusCycleWireBytes,
  syncReadWireBytes,
  type BusProtocol,
  type BusProtocolName,
  type RegisterBlock,
  type ServoControlTable,
} from "./BusProtocol.js";
export {
  decodeRegister,
  encodeRegister,
  register,
  signMagnitude,
  twosComplement,
  unsigned,
  type Register,
  type RegisterEncoding,
} from "./wordCodec.js";
export { protocolNamed } from "./protocolNamed.js";
export { broadcastPingWaitMs, type ServoSetupTable } from "./ServoSetupTable.js";
export { decodeSimMount, encodeSimMount, SIM_MOUNT_BLOCK, type SimMount } from "./simMountBlock.js";
export {
  hardwareErrorKinds,
  type EffortRegister,
  type HardwareErrorKind,
  type ServoConditionTable,
} from "./ServoConditionTable.js";
