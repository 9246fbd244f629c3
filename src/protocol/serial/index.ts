export * from "./messages.js";
export { encodeFrame, encodePayload, decodePayload, type DecodeResult } from "./codec.js";
export { FrameDecoder } from "./FrameDecoder.js";
export { cobsEncode, cobsDecode } from "./cobs.js";
export { crc16CcittFalse } from "./crc.js";
export { WIRE_LIMITS, actionIdProblem } from "./wireLimits.js";
