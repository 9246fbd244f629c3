import type { ArmConfig } from "../../config/ArmConfig.js";
import type { ByteLink } from "../link/ByteLink.js";
import { linkForUrl, type LinkOptions } from "../link/openLink.js";
import { SerialTransport, type SerialTransportOptions } from "./SerialTransport.js";

/**
 * The serial transport for `link`: a device path (`/dev/ttyACM0`, a socat
 * PTY), `tcp://HOST:PORT`, or an already-built ByteLink. Throws
 * ARMB_ERR_LINK_URL for a URL that is neither; connects only on `open()`.
 */
export function createSerialTransport(
  config: ArmConfig,
  link: string | ByteLink,
  options: SerialTransportOptions & LinkOptions = {},
): SerialTransport {
  const byteLink =
    typeof link === "string"
      ? linkForUrl(link, options.baudRate === undefined ? {} : { baudRate: options.baudRate })
      : link;
  return new SerialTransport(config, byteLink, options);
}
