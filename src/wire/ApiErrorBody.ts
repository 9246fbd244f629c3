import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/**
 * Every non-2xx answer of the API: the error's registry code and its message;
 * for a name that is not a valid one (an unknown camera, axis, field), the
 * valid `choices`.
 */
export const API_ERROR_BODY = z.strictObject({
  error: z.strictObject({ code: z.string(), message: z.string(), choices: z.optional(z.array(z.string())) }),
});
export type ApiErrorBody = WireOf<typeof API_ERROR_BODY>;
