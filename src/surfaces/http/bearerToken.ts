import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh token for `serve` when none is given: 32 random bytes, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/**
 * The `WWW-Authenticate` value of a 401. RFC 9110 §11.6.1 requires the
 * header on every 401, and RFC 6750 §3 names the scheme: `Bearer`, with
 * `error="invalid_token"` when a token was sent and refused (§3.1), none
 * when no credentials came at all. MCP's authorization spec (revision
 * 2025-11-25, basic/authorization) adds `resource_metadata` (RFC 9728 §5.1)
 * for servers that implement its OAuth flow; armbridge does not — its token
 * is handed out by the operator, like stdio credentials "from the
 * environment" — so there is no protected-resource metadata to point to.
 */
export function bearerChallenge(authorization: string | undefined): string {
  return authorization === undefined ? 'Bearer realm="armbridge"' : 'Bearer realm="armbridge", error="invalid_token"';
}

/**
 * Compares in time independent of where the strings differ. Both sides are
 * hashed first so that their lengths are equal too (timingSafeEqual requires
 * it, and comparing lengths first would leak the token's length).
 */
export function tokensMatch(given: string | undefined, expected: string): boolean {
  const a = createHash("sha256")
    .update(given ?? "")
    .digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && given !== undefined;
}

/** Who a request speaks for: the API token (agents, MCP clients, scripts) or the operator token (the console, a person). */
export type Credential = "api" | "operator";

/** The credential an `Authorization` header carries, or undefined when it carries neither token. Both are always compared. */
export function credentialOf(
  header: string | undefined,
  tokens: { readonly api: string; readonly operator: string },
): Credential | undefined {
  const given = bearerOf(header);
  const operator = tokensMatch(given, tokens.operator);
  const api = tokensMatch(given, tokens.api);
  return operator ? "operator" : api ? "api" : undefined;
}
