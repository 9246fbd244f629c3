import { isLoopbackHost, type HostAllowList } from "./hostAllowList.js";
import type { SecurityReport, SecurityWarning } from "../../wire/SecurityReport.js";

/** Tokens shorter than this are flagged: 16 random characters are the least a guess-by-network attack should face. */
export const MIN_TOKEN_LENGTH = 16;

export type { SecurityReport, SecurityWarning } from "../../wire/SecurityReport.js";
export type SecurityWarningKind = SecurityWarning["kind"];

export function securityReport(options: {
  readonly bindHost: string;
  readonly token: string;
  readonly hosts: HostAllowList;
}): SecurityReport {
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
