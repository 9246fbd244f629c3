import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** Names every server answers to, whatever it is bound to. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"] as const;

/** True for an address that only this machine can reach: `localhost`, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeHost(host);
  return h === "localhost" || h === "::1" || (isIP(h) === 4 && h.startsWith("127."));
}

/** True for 0.0.0.0 / :: — every address of the machine. */
export function isWildcardHost(host: string): boolean {
  const h = normalizeHost(host);
  return h === "0.0.0.0" || h === "::" || h === "0:0:0:0:0:0:0:0";
}

/**
 * The names a server answers to, checked against each request's Host header.
 *
 * A DNS-rebinding page gets the browser to send requests to this server under
 * the attacker's own name (`Host: evil.example`), so refusing names the
 * server was not given stops it even on routes that need no token
 * (/console, /healthz). Allowed: loopback names, the bind address (for a
 * wildcard bind, the machine's interface addresses), and the names given
 * with `--allow-host`. Vite added the same check for the same attack
 * (vitejs/vite commit bd896fb5, advisory GHSA-vg6x-rcgg-rjx6; docs
 * `server.allowedHosts`); it lets every IP literal through, this list only
 * the machine's own addresses, as the server moves an arm.
 */
export class HostAllowList {
  readonly #names: ReadonlySet<string>;
  /** The names given with --allow-host: a page served under one of them (a proxy in front) may call the API. */
  readonly #extra: ReadonlySet<string>;

  constructor(options: { readonly bindHost: string; readonly extra?: readonly string[] | undefined }) {
    const names = new Set<string>(LOOPBACK_NAMES);
    if (isWildcardHost(options.bindHost)) {
      for (const list of Object.values(networkInterfaces()))
        for (const a of list ?? []) names.add(normalizeHost(a.address.split("%")[0] ?? a.address));
    } else names.add(normalizeHost(options.bindHost));
    for (const name of options.extra ?? []) names.add(normalizeHost(name));
    this.#names = names;
    this.#extra = new Set((options.extra ?? []).map(normalizeHost));
  }

  /** Allowed names, IPv6 in brackets as they appear in a Host header. */
  get names(): string[] {
    return [...this.#names].map((n) => (isIP(n) === 6 ? `[${n}]` : n));
  }

  /**
   * Whether a request's Origin header may call this server. MCP's Streamable
   * HTTP transport (spec revision 2025-11-25, basic/transports, "Security
   * Warning") requires a server to validate `Origin` on every request and to
   * answer 403 Forbidden when it is present and invalid: a page of another
   * origin on this machine (a dev server on localhost:5173) would otherwise
   * reach the API under an allowed Host name. Valid: no Origin (processes —
   * MCP hosts, agents, curl — send none), the server's own origin (the
   * console, same scheme-less host and port as the Host header), or an origin
   * under a name given with --allow-host (a proxy in front serving the
   * console). `null` (sandboxed frames, file: pages) never is.
   */
  allowsOrigin(originHeader: string | undefined, hostHeader: string | undefined): boolean {
    if (originHeader === undefined) return true;
    let url: URL;
    try {
      url = new URL(originHeader.trim());
    } catch {
      return false;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    if (hostHeader !== undefined && url.host === withoutDefaultPort(hostHeader.trim().toLowerCase(), url.protocol))
      return true;
    return this.#extra.has(normalizeHost(url.hostname));
  }

  /** Whether a Host header (`name`, `name:port`, `[v6]:port`) names this server. An absent header never does. */
  allows(hostHeader: string | undefined): boolean {
    const host = hostOf(hostHeader);
    return host !== undefined && this.#names.has(host);
  }
}

/** The host part of a Host header, normalized; undefined when there is none or it is malformed. */
export function hostOf(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined) return undefined;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(hostHeader.trim());
  const host = m?.[1] ?? m?.[2];
  return host === undefined || host === "" ? undefined : normalizeHost(host);
}

/** `name:80` as an http origin writes it (`name`), `name:443` likewise for https. */
function withoutDefaultPort(host: string, protocol: string): string {
  const port = protocol === "https:" ? ":443" : ":80";
  return host.endsWith(port) ? host.slice(0, -port.length) : host;
}

/** Lower case, no brackets, no trailing dot (`LocalHost.` is `localhost`). */
export function normalizeHost(host: string): string {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  return h.endsWith(".") ? h.slice(0, -1) : h;
}
