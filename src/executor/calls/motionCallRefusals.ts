import { asArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import type { CallResult } from "./CallResult.js";
import { rejected } from "./callResults.js";
import { resultMessages } from "./resultMessages.js";
import type { MotionTool, ReadContext } from "../toolContract/ToolDefinition.js";

/** A tool's asynchronous precondition, bounded by the run deadline: a refusal is `failed` with its code, before anything is recorded or sent. */
export async function precheckMotion(
  tool: MotionTool,
  args: unknown,
  deadline: { readonly signal: AbortSignal; readonly at: number },
  d: { readonly ctx: ReadContext; readonly log: Logger; readonly now: () => number },
): Promise<CallResult | undefined> {
  const budget = Math.min(tool.timeoutMs, deadline.at - d.now());
  const wait = AbortSignal.any([deadline.signal, AbortSignal.timeout(Math.max(0, budget))]);
  const refusal = await tool.precheck?.(args, d.ctx, wait);
  if (!refusal) return undefined;
  d.log.info(
    { tool: tool.name, code: refusal.code, reason: refusal.reason },
    "call refused by its precheck; nothing was sent",
  );
  return {
    status: "failed",
    error_code: refusal.code,
    reason: refusal.reason,
    message: resultMessages.failed(tool.name, undefined, refusal.reason),
    timed_out: false,
    settled_by: "none",
  };
}

/** An internal fault before the intent was durable: nothing was sent, so a re-run is safe. */
export function failedBeforeSend(toolName: string, error: unknown, log: Logger): CallResult {
  const e = asArmbridgeError(error);
  log.error({ tool: toolName, err: e.toJSON() }, "call failed before anything was sent");
  if (e.code === "ARMB_ERR_CALL_ID_REUSED")
    return rejected(toolName, e.code, [{ path: "id", code: "reused", message: e.message }]);
  const reason = `an internal error before anything was sent (${e.code}: ${e.message})`;
  return {
    status: "failed",
    error_code: e.code,
    reason,
    message: resultMessages.failed(toolName, undefined, reason),
    timed_out: false,
    settled_by: "none",
  };
}
