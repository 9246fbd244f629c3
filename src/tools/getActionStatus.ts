import { resultFromRow } from "../executor/calls/resultFromRow.js";
import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { defineReadTool, type HaltTool, type ReadTool } from "../executor/toolContract/ToolDefinition.js";

/** `get_action_status {action_id}`: an earlier action as the intent ledger records it. Read-only. */
export function getActionStatus(config: ArmConfig): ReadTool | HaltTool {
  return defineReadTool({
    name: "get_action_status",
    description:
      "Look up an earlier action by its action_id in the intent ledger. Returns its status now, with the meanings a motion's own result gives them (done, stopped, failed, or unknown: do NOT re-run, ask the operator), " +
      "the ledger's state behind it (started: still under way; done; failed; unknown; halted: a halt stopped it part-way; confirmed_done, confirmed_partial, confirmed_not_done: an operator's word) and the evidence. Read-only.",
    args: z
      .object({ action_id: z.string().min(1).max(128).describe("The action_id from an earlier result.") })
      .strict(),
    blocking: false,
    kind: "read",
    timeoutMs: config.timeoutsMs.getActionStatus,
    run: async (args, ctx) => {
      const row = ctx.action(args.action_id);
      if (!row)
        return { message: `No action with id ${args.action_id}.`, data: { found: false, action_id: args.action_id } };
      return {
        // An operator's word carries what the model must know next (e.g. where a part-way motion left the arm).
        message: `Action ${row.actionId} (${row.tool}) is ${row.state}${row.operator ? `, confirmed by ${row.operator}. ${resultFromRow(row).message}` : "."}`,
        data: {
          found: true,
          action_id: row.actionId,
          call_id: row.callId,
          tool: row.tool,
          args: row.args,
          // What a result would say now (README "Results a model sees"), beside the ledger's own word.
          status: resultFromRow(row).status,
          state: row.state,
          timed_out: row.timedOut,
          settled_by: row.settledBy,
          resources: row.resources,
          evidence: row.evidence ?? null,
          operator: row.operator ?? null,
          operator_outcome: row.operatorOutcome ?? null,
          observed_pose: row.observed?.pose ?? null,
          created_at: row.createdAt,
          settled_at: row.settledAt ?? null,
        },
      };
    },
  });
}
