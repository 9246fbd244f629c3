export type { ByteLink } from "./ByteLink.js";
export { TcpLink } from "./TcpLink.js";
export { SerialPortLink, DEFAULT_BAUD_RATE } from "./SerialPortLink.js";
export { createMemoryLinkPair, type MemoryDeviceEnd } from "./MemoryLink.js";
export { ExponentialBackoff, DEFAULT_BACKOFF, type BackoffOptions } from "./ExponentialBackoff.js";
export { linkForUrl, openLink, type LinkOptions } from "./openLink.js";
