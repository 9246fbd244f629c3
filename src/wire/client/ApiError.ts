/** What an answer that is not the contract's says: a 2xx whose body fails its route's schema, or is not JSON. */
export const BAD_ANSWER_CODE = "ARMB_ERR_HTTP_BAD_ANSWER";

/**
 * Every error answer of `armbridge serve` as a client sees it: the HTTP
 * status, the registry code (the server's own, else `HTTP_<status>` for an
 * answer not in the API's error shape, such as a proxy's page) and the
 * message. An answer that breaks the contract is one too, coded
 * ARMB_ERR_HTTP_BAD_ANSWER.
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The error an answer of `status` with body `text` stands for. */
export function apiErrorOf(status: number, text: string, statusText = ""): ApiError {
  let code = `HTTP_${status}`;
  let message = text.slice(0, 200) || statusText || "request failed";
  try {
    const e = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (typeof e?.code === "string") code = e.code;
    if (typeof e?.message === "string") message = e.message;
  } catch {
    // Not our error shape: the status and the text say it.
  }
  return new ApiError(status, code, message);
}
