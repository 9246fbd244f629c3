import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";
import { CLIENT_VIEW } from "./ClientView.js";

/** A call waiting for an operator's approve / decline (GET /v1/approvals), as src/executor's ApprovalDesk shows it. */
export const APPROVAL_VIEW = z.strictObject({
  id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  args: z.unknown(),
  resources: z.array(z.string()),
  /** The motion's planned absolute targets (IK-derived joints for Cartesian tools): what the gauges draw. */
  targets: z.record(z.string(), z.number()),
  /** Which rule asked for approval, in words. */
  why: z.string(),
  requested_at: z.number(),
  expires_at: z.number(),
  /** Who sent the call that waits; null when the caller said nothing. */
  client: z.nullable(CLIENT_VIEW),
});
export type ApprovalView = WireOf<typeof APPROVAL_VIEW>;

/** A request once it ended (the approve / decline answer, the `approval_resolved` event). */
export const DECIDED_APPROVAL_VIEW = z.extend(APPROVAL_VIEW, {
  decision: z.enum(["approved", "declined", "expired", "withdrawn"]),
  operator: z.nullable(z.string()),
  note: z.nullable(z.string()),
  decided_at: z.number(),
  /** Set when a HALT declined the request (every pending request is declined by a halt): that halt's id. */
  halt_id: z.optional(z.string()),
});
export type DecidedApprovalView = WireOf<typeof DECIDED_APPROVAL_VIEW>;

export const APPROVALS_LIST = z.strictObject({ approvals: z.array(APPROVAL_VIEW) });
export type ApprovalsList = WireOf<typeof APPROVALS_LIST>;
