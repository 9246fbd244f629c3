import { ArmbridgeError } from "../../errors.js";
import { Rfc2217Link } from "./rfc2217/Rfc2217Link.js";
import type { ByteLink } from "./ByteLink.js";
import { DEFAULT_BAUD_RATE, SerialPortLink } from "./SerialPortLink.js";
import { TcpLink } from "./TcpLink.js";

export interface LinkOptions {
  /** Serial devices and RFC 2217 servers (a raw TCP stream's baud is set at the server). Default 115200. */
  readonly baudRate?: number;
}

/**
 * Chooses the link for a URL without opening it: `tcp://HOST:PORT` is a raw
 * TCP stream (ser2net raw mode, firmware-sim), `rfc2217://HOST:PORT` a serial
 * port behind an RFC 2217 Telnet server (the host sets its baud), an absolute
 * path or a Windows `COMn` name is a serial device. Anything else is
 * ARMB_ERR_LINK_URL.
 */
export function linkForUrl(url: string, options: LinkOptions = {}): ByteLink {
  if (url.startsWith("tcp://") || url.startsWith("rfc2217://")) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (error) {
      throw new ArmbridgeError("ARMB_ERR_LINK_URL", { link: url }, { cause: error });
    }
    const port = Number(parsed.port);
    const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
    if (
      !host ||
      !Number.isInteger(port) ||
      port < 1 ||
      port > 65535 ||
      (parsed.pathname !== "" && parsed.pathname !== "/")
    ) {
      throw new ArmbridgeError("ARMB_ERR_LINK_URL", { link: url });
    }
    return url.startsWith("rfc2217://")
      ? new Rfc2217Link(url, host, port, { baudRate: options.baudRate ?? DEFAULT_BAUD_RATE })
      : new TcpLink(url, host, port);
  }
  if (url.startsWith("/") || /^COM\d+$/i.test(url) || /^\\\\\.\\COM\d+$/i.test(url)) {
    return new SerialPortLink(url, options.baudRate === undefined ? {} : { baudRate: options.baudRate });
  }
  throw new ArmbridgeError("ARMB_ERR_LINK_URL", { link: url });
}

/** `linkForUrl` then `open`: rejects with ARMB_ERR_LINK_URL or ARMB_ERR_LINK_OPEN. */
export async function openLink(url: string, options: LinkOptions & { signal?: AbortSignal } = {}): Promise<ByteLink> {
  const link = linkForUrl(url, options);
  await link.open(options.signal);
  return link;
}
