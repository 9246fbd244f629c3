import type { CallResponse, CallResult } from "../bridge/BridgePort.js";
import { withoutDeviceTextIn } from "../validation/deviceText.js";
import { splitImages } from "./splitImages.js";

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
  /**
   * Pictures of the result (get_camera_image, frames attached after a
   * motion), as Gemini's FunctionResponse.parts: inline image data. The
   * result's own `images` keep only their description (no bytes), so the
   * JSON stays small. See docs/cameras.md for which models read parts in a
   * function response and what the agent loop does for the others.
   */
  readonly parts?: readonly { readonly inlineData: { readonly mimeType: string; readonly data: string } }[];
}

/**
 * The model's copy of a call's result. Device text (a camera's reason
 * phrase, a controller's error_string, a device's refusal reason) is
 * withheld here, the one place every model-facing surface takes results
 * from: a model reads the codes and our sentences, the operator the device's
 * words (console events, the log and the ledger keep the result as it was).
 */
export function toFunctionResponse(r: CallResponse): FunctionResponse {
  const { result: described, parts } = splitImages(r.result);
  const result = withoutDeviceTextIn(described);
  return {
    id: r.id,
    name: r.name,
    response: result.status === "rejected" ? { error: result } : { output: result },
    ...(parts.length > 0 ? { parts } : {}),
  };
}

/** The result inside a FunctionResponse, wherever it sits. */
export function resultOf(response: FunctionResponse["response"]): CallResult {
  return "output" in response ? response.output : response.error;
}
