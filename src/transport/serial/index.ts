export { createSerialTransport } from "./createSerialTransport.js";
export { SerialTransport } from "./SerialTransport.js";
export {
  SERIAL_TRANSPORT_DEFAULTS,
  type SerialTransportOptions,
  type DeviceInfo,
  type DeviceReboot,
  type SerialConnectionState,
} from "./SerialTransportOptions.js";
export { PROTOCOL_V1_CODEC, type FrameCodec } from "./FrameCodec.js";
export { RequestChannel, type RequestOutcome, type RequestOptions } from "./RequestChannel.js";
export { StatusCache, toArmStatus, toActionRecord } from "./StatusCache.js";
export type { HostRequest, DeviceReply } from "./wireTypes.js";
export * from "../link/index.js";
