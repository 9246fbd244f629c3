import { z } from "zod";
import type { WireOf } from "./WireOf.js";

/** Every non-2xx answer of the API: the error's registry code and its message. */
export const API_ERROR_BODY = z.strictObject({ error: z.strictObject({ code: z.string(), message: z.string() }) });
export type ApiErrorBody = WireOf<typeof API_ERROR_BODY>;
