import type { CallResponse, CallResult } from "../executor/CallResult.js";

/**
 * Gemini's `FunctionResponse` shape, used by every surface (Gemini unary and
 * Live, HTTP, MCP): the same `id` and `name` as the call, the result under
 * `output`, except a rejected call (bad arguments, unknown tool, reused id),
 * which goes under `error` so the model reads it as its own mistake.
 */
export interface FunctionResponse {
  readonly id: string;
  readonly name: string;
  readonly response: { readonly output: CallResult } | { readonly error: CallResult };
}

export function toFunctionResponse(r: CallResponse): FunctionResponse {
  return { id: r.id, name: r.name, response: r.result.status === "rejected" ? { error: r.result } : { output: r.result } };
}

/** The result inside a FunctionResponse, wherever it sits. */
export function resultOf(response: FunctionResponse["response"]): CallResult {
  return "output" in response ? response.output : response.error;
}
