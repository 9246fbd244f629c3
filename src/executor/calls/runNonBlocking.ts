import { asArmbridgeError } from "../../errors.js";
import type { HaltContext, HaltTool, ReadContext, ReadTool } from "../toolContract/ToolDefinition.js";
import type { CallResult } from "./CallResult.js";
import type { CallDeadline } from "./CallDeadline.js";
import { skipped } from "./callResults.js";
import { resultMessages } from "./resultMessages.js";

/** A read or a halt: no locks, no ledger. A halt ignores the run deadline: stopping must always be possible. */
export async function runNonBlocking(
  tool: ReadTool | HaltTool,
  args: unknown,
  ctx: { readonly read: ReadContext; readonly halt: HaltContext; readonly callId?: string | undefined },
  deadline: Pick<CallDeadline, "signal" | "at" | "end">,
): Promise<CallResult> {
  const budget = tool.kind === "halt" ? tool.timeoutMs : Math.min(tool.timeoutMs, deadline.at - ctx.read.now());
  if (budget <= 0 || (tool.kind === "read" && deadline.signal.aborted)) return skipped(tool.name, deadline.end);
  const wait = new AbortController();
  const timer = setTimeout(() => wait.abort(), budget);
  try {
    // A read tool gets the reads only: nothing in its context can move or stop the arm.
    const haltCtx: HaltContext = { ...ctx.halt, halt: (o) => ctx.halt.halt({ ...o, callId: ctx.callId }) };
    const out =
      tool.kind === "halt" ? await tool.run(args, haltCtx, wait.signal) : await tool.run(args, ctx.read, wait.signal);
    // A halt the arm did not confirm is not done: the arm may still be moving.
    if (out.unconfirmed) {
      return {
        status: "unknown",
        resources: out.unconfirmed.resources,
        message: out.message,
        timed_out: false,
        settled_by: "none",
        ...(out.pose ? { pose: out.pose } : {}),
      };
    }
    return {
      status: "done",
      message: out.message,
      timed_out: false,
      settled_by: "completion",
      ...(out.pose ? { pose: out.pose } : {}),
      output: out.data,
      ...(out.images && out.images.length > 0 ? { images: out.images } : {}),
    };
  } catch (error) {
    const e = asArmbridgeError(error);
    // A read that failed had no effect; say so plainly.
    return {
      status: "failed",
      reason: e.message,
      // The code says which failure it was (a camera that gave no frame), not only the words.
      ...(e.code === "ARMB_ERR_INTERNAL" ? {} : { error_code: e.code }),
      message: resultMessages.failed(tool.name, undefined, e.message),
      timed_out: wait.signal.aborted,
      settled_by: "completion",
    };
  } finally {
    clearTimeout(timer);
  }
}
