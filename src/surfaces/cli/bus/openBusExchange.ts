import { realpathSync } from "node:fs";
import { BusExchange } from "../../../transport/bus/setup/BusExchange.js";
import { protocolNamed, type BusProtocolName } from "../../../protocol/bus/index.js";
import { linkForUrl } from "../../../transport/link/openLink.js";

/** Opens LINK at `baud` for the set-up tools; close the exchange's link when done. */
export async function openBusExchange(
  link: string,
  protocol: BusProtocolName,
  baud: number,
  signal?: AbortSignal,
): Promise<BusExchange> {
  const byteLink = linkForUrl(link, { baudRate: baud });
  await byteLink.open(signal);
  return new BusExchange(byteLink, protocolNamed(protocol), baud);
}

/**
 * Whether LINK is a pseudo-terminal (a simulator's PTY, a socat relay): a
 * baud set on one reaches no wire, so whatever rate is asked, everything
 * behind it answers. Worth a word before a scan over several bauds.
 */
export function isPseudoTerminal(link: string): boolean {
  if (!link.startsWith("/")) return false;
  try {
    return realpathSync(link).startsWith("/dev/pts/");
  } catch {
    return false;
  }
}
