export type { BusPacket, PacketDecoder, StatusReply } from "./BusPacket.js";
export { BUS_PROTOCOLS, hardwareErrorNames, statusCycleWireBytes, syncReadWireBytes, type BusProtocol, type BusProtocolName, type RegisterBlock, type ServoControlTable } from "./BusProtocol.js";
export { decodeRegister, encodeRegister, register, signMagnitude, twosComplement, unsigned, type Register, type RegisterEncoding } from "./wordCodec.js";
export { protocolNamed } from "./protocolNamed.js";
