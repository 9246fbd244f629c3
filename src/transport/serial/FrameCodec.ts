import { FrameDecoder, encodeFrame, type DecodeResult, type Message } from "../../protocol/serial/index.js";

/**
 * What the transport needs from the wire codec. The transport takes it as a
 * parameter so its resend/ack machinery can be exercised against any framing;
 * the product uses `PROTOCOL_V1_CODEC`.
 */
export interface FrameCodec {
  /** The bytes for one frame, delimiter included. Throws for a message that cannot be encoded. */
  encodeFrame(message: Message): Uint8Array;
  /** A fresh stream decoder; one per connection, so a reconnect never joins half-frames. */
  createDecoder(): { push(chunk: Uint8Array): DecodeResult[] };
}

/** docs/serial-protocol.md, version 1: COBS frames with a CRC-16. */
export const PROTOCOL_V1_CODEC: FrameCodec = {
  encodeFrame,
  createDecoder: () => new FrameDecoder(),
};
