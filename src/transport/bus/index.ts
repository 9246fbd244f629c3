import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import type { ByteLink } from "../link/ByteLink.js";
import { linkForUrl } from "../link/openLink.js";
import { protocolNamed } from "../../protocol/bus/index.js";
import { ServoBusTransport } from "./ServoBusTransport.js";
import type { ServoBusTransportOptions } from "./ServoBusTransportOptions.js";

export { ServoBusTransport } from "./ServoBusTransport.js";
export type { ServoBusTransportOptions } from "./ServoBusTransportOptions.js";
export { servoAxesOf, countOf, positionOf, type ServoAxis } from "../../protocol/bus/servoAxes.js";

/** The servo-bus transport for a config with a `bus:` section, over a device path or tcp://HOST:PORT. */
export function createServoBusTransport(
  config: ArmConfig,
  link: string | ByteLink,
  options: ServoBusTransportOptions = {},
): ServoBusTransport {
  const bus = config.bus;
  if (!bus)
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path: "bus", issues: "the config has no bus: section" });
  const byteLink = typeof link === "string" ? linkForUrl(link, { baudRate: bus.baud }) : link;
  return new ServoBusTransport(config, byteLink, protocolNamed(bus.protocol), { baud: bus.baud, ...options });
}
