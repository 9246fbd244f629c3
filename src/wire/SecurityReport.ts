import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/** GET /v1/security: how the API is exposed, for the console to show as a banner. */
export const SECURITY_REPORT = z.strictObject({
  /** The address the API is bound to. */
  bind: z.string(),
  /** True when only this machine can reach the API. */
  loopback_only: z.boolean(),
  /** Host header names answered; other names get 421 ARMB_ERR_HTTP_HOST_NOT_ALLOWED. */
  allowed_hosts: z.array(z.string()),
  /** Empty when nothing needs saying. */
  warnings: z.array(z.strictObject({ kind: z.enum(["bind_beyond_loopback", "short_token"]), message: z.string() })),
});
export type SecurityReport = WireOf<typeof SECURITY_REPORT>;
export type SecurityWarning = SecurityReport["warnings"][number];
