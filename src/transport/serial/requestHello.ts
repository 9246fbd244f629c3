import { ArmbridgeError } from "../../errors.js";
import type { MessageOf } from "../../protocol/serial/index.js";
import type { RequestChannel } from "./RequestChannel.js";
import type { RequestTiming } from "./SerialTransportOptions.js";

/** The handshake: HELLO_REQ answered by the device's HELLO, or the reason the link could not open. */
export async function requestHello(
  channel: RequestChannel,
  link: string,
  hostVersion: string,
  timing: RequestTiming,
  signal: AbortSignal,
): Promise<MessageOf<"HELLO">> {
  const outcome = await channel.request({ op: "HELLO_REQ", hostVersion }, { signal, ...timing });
  if (outcome.kind !== "reply") {
    throw outcome.kind === "aborted"
      ? new ArmbridgeError("ARMB_ERR_LINK_OPEN", { link, reason: "no HELLO before the deadline" })
      : outcome.error;
  }
  if (outcome.reply.op !== "HELLO") {
    throw new ArmbridgeError("ARMB_ERR_LINK_OPEN", {
      link,
      reason: `the device answered HELLO_REQ with ${outcome.reply.op}`,
    });
  }
  return outcome.reply;
}
