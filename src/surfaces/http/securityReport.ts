import { isLoopbackHost, type HostAllowList } from "./hostAllowList.js";

/** Tokens shorter than this are flagged: 16 random characters are the least a guess-by-network attack should face. */
export const MIN_TOKEN_LENGTH = 16;

export type SecurityWarningKind = "bind_beyond_loopback" | "short_token";

export interface SecurityWarning {
  readonly kind: SecurityWarningKind;
  readonly message: string;
}

/** GET /v1/security: how the API is exposed, for the console to show as a banner. */
export interface SecurityReport {
  /** The address the API is bound to. */
  readonly bind: string;
  /** True when only this machine can reach the API. */
  readonly loopback_only: boolean;
  /** Host header names answered; other names get 421 ARMB_ERR_HTTP_HOST_NOT_ALLOWED. */
  readonly allowed_hosts: readonly string[];
  /** Empty when nothing needs saying. */
  readonly warnings: readonly SecurityWarning[];
}

export function securityReport(options: { readonly bindHost: string; readonly token: string; readonly hosts: HostAllowList }): SecurityReport {
  const loopbackOnly = isLoopbackHost(options.bindHost);
  const warnings: SecurityWarning[] = [];
  if (!loopbackOnly) {
    warnings.push({
      kind: "bind_beyond_loopback",
      message: `the API is bound to ${options.bindHost}, reachable from other machines: anyone on that network who learns the token can move the arm (bind 127.0.0.1 unless you need this)`,
    });
  }
  if (options.token.length < MIN_TOKEN_LENGTH) {
    warnings.push({
      kind: "short_token",
      message: `the API token is ${options.token.length} characters long; use at least ${MIN_TOKEN_LENGTH} random characters (or give none and serve generates one)`,
    });
  }
  return { bind: options.bindHost, loopback_only: loopbackOnly, allowed_hosts: options.hosts.names, warnings };
}
