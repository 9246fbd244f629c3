import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CallResponse, CallStatus } from "../../bridge/BridgePort.js";
import { CALL_STATUSES } from "../../bridge/portVocabulary.js";
import { resultOf, toFunctionResponse } from "../toFunctionResponse.js";
import { splitImages } from "../splitImages.js";

/**
 * Which results an MCP host sees as `isError`.
 *
 * Hosts treat `isError: true` as "the tool call failed": they show it as an
 * error and many agent frameworks hand it back to the model as a failure to
 * correct and re-try (some re-try by themselves). So `isError` marks exactly
 * the results after which a corrected or later re-run is safe — nothing
 * physical happened: `rejected` (fix the arguments), `failed` (positive
 * evidence nothing moved), `skipped` (nothing was sent).
 *
 * `stopped` is not an error either: the arm moved (it ended part-way, at a
 * known pose); a re-run plans from there, and after a halt only once an
 * operator released it.
 *
 * `unknown` is deliberately NOT an error: the motion may have happened, and a
 * host that re-runs "failed" calls must not re-run it. Nor is `blocked`: a
 * person has to confirm first, re-trying achieves nothing. Both carry their
 * "do not re-run" instruction in the message and in `structuredContent`.
 *
 * Spelled out per status so that a new status breaks the build here until
 * someone decides.
 */
export const MCP_IS_ERROR: Readonly<Record<CallStatus, boolean>> = {
  done: false,
  stopped: false,
  failed: true,
  unknown: false,
  rejected: true,
  skipped: true,
  blocked: false,
};

/**
 * One executor response as an MCP `CallToolResult`: the CallResult itself as
 * `structuredContent` (status, action_id, message, timed_out, settled_by, …),
 * and for hosts that only read text, the message followed by the same
 * FunctionResponse JSON every other surface returns (result under `output`,
 * a rejection under `error`).
 */
export function toCallToolResult(response: CallResponse): CallToolResult {
  const fr = toFunctionResponse(response);
  const result = resultOf(fr.response);
  // Pictures travel as MCP image content (base64 + mimeType); the JSON keeps only their description.
  const { parts } = splitImages(response.result);
  return {
    content: [
      { type: "text", text: `${result.message}\n${JSON.stringify(fr.response)}` },
      ...parts.map((p) => ({ type: "image" as const, data: p.inlineData.data, mimeType: p.inlineData.mimeType })),
    ],
    structuredContent: { ...result },
    isError: MCP_IS_ERROR[result.status],
  };
}

/** The JSON Schema of `structuredContent`, announced as every tool's `outputSchema`. */
export const CALL_RESULT_OUTPUT_SCHEMA = {
  type: "object" as const,
  properties: {
    status: { type: "string", enum: Object.keys(CALL_STATUSES) },
    action_id: {
      type: "string",
      description: "The motion's id in the intent ledger; quote it to get_action_status or to an operator.",
    },
    message: { type: "string" },
    timed_out: { type: "boolean", description: "Our wait ended by timeout; never by itself evidence of failure." },
    settled_by: { type: "string", enum: ["completion", "observation", "operator", "none"] },
  },
  required: ["status", "message", "timed_out", "settled_by"],
  additionalProperties: true,
};
