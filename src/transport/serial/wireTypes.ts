import type { Message, MessageOf } from "../../protocol/serial/index.js";

/** Ops the host sends and expects one reply to. */
export type HostOp = "HELLO_REQ" | "MOVE" | "STOP" | "QUERY_ACTION" | "PING";

type WithoutSeq<M> = M extends unknown ? Omit<M, "seq"> : never;

/** A host frame before the request channel gives it a sequence number. */
export type HostRequest = WithoutSeq<MessageOf<HostOp>>;

/** Frames that answer a host frame by `ackSeq`. */
export type DeviceReply = MessageOf<"HELLO" | "ACK" | "NACK" | "ACTION">;

export function isDeviceReply(message: Message): message is DeviceReply {
  return message.op === "HELLO" || message.op === "ACK" || message.op === "NACK" || message.op === "ACTION";
}
