import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/**
 * A call's result as the API sends it (the result contract: `status`,
 * `message`, `timed_out`, `settled_by`, `action_id` where there is one). The
 * rest of each status's fields are let through as they are: src/executor's
 * CallResult is their one definition, and the server's views only compile
 * while every CallResult is one of these.
 */
export const CALL_RESULT_VIEW = z.object({
  status: z.enum(["done", "stopped", "failed", "unknown", "rejected", "skipped", "blocked"]),
  message: z.string(),
  timed_out: z.boolean(),
  settled_by: z.enum(["completion", "observation", "operator", "none"]),
  action_id: z.optional(z.string()),
  /** The registry code (src/errors.ts) of a result that is not a success: why it was refused, blocked or failed. */
  error_code: z.optional(z.string()),
});
export type CallResultView = WireOf<typeof CALL_RESULT_VIEW>;

/** One call's answer, a Gemini FunctionResponse: the result under `output`, a rejection under `error`; pictures as inline-data parts. */
export const CALL_ANSWER = z.strictObject({
  id: z.string(),
  name: z.string(),
  response: z.union([z.strictObject({ output: CALL_RESULT_VIEW }), z.strictObject({ error: CALL_RESULT_VIEW })]),
  parts: z.optional(
    z.array(z.strictObject({ inlineData: z.strictObject({ mimeType: z.string(), data: z.string() }) })),
  ),
});
/** GET /v1/calls/:id (re-attach): the motion call's result once it settles, `replayed`. */
export type CallAnswer = WireOf<typeof CALL_ANSWER>;

/** POST /v1/calls: one response per call, in call order (Gemini FunctionResponse shapes). */
export const CALLS_RESPONSE = z.strictObject({ responses: z.array(CALL_ANSWER) });
export type CallsResponse = WireOf<typeof CALLS_RESPONSE>;

/** POST /v1/calls/cancel: which ids had a request waiting (now ended), and which did not (not arrived yet, or answered already). */
export const CALLS_CANCELLED = z.strictObject({ cancelled: z.array(z.string()), not_waiting: z.array(z.string()) });
export type CallsCancelled = WireOf<typeof CALLS_CANCELLED>;
