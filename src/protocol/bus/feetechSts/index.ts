export { sts } from "./instructions.js";
export {
  encodeStsPacket,
  encodeStsStatus,
  STS_BROADCAST_ID,
  STS_INSTRUCTION,
  StsDecoder,
  stsChecksum,
  stsStatusOf,
} from "./packet.js";
export { STS_TABLE } from "./stsTable.js";
export { feetechStsProtocol } from "./feetechStsProtocol.js";
