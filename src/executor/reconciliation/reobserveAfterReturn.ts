import type { ActionRowState } from "../../wire/vocabulary.js";
import { observeRecordedAction, type RecordedObservationDeps } from "./observeRecordedAction.js";

/** What looking again at one action came to. */
export interface ReobservedAction {
  readonly actionId: string;
  readonly state: ActionRowState;
}

/**
 * The arm answers again after its link was lost (or came back as a new
 * incarnation): every action still `unknown` is looked at again with the
 * judgement every observation uses (voiding only what the same incarnation
 * never heard of), and settled where the evidence is conclusive — reached,
 * nothing moved, the target holds. Anything short of that (cut short
 * part-way, no evidence) stays `unknown`, its joints held, for an operator.
 * Motions still `started` are being observed by their own call and are left
 * to it. Nothing is ever re-sent.
 */
export async function reobserveAfterReturn(d: RecordedObservationDeps): Promise<ReobservedAction[]> {
  return Promise.all(
    d.ledger.inState("unknown").map(async (row): Promise<ReobservedAction> => {
      const outcome = await observeRecordedAction(d, row);
      if (!outcome) return { actionId: row.actionId, state: row.state };
      const v = outcome.verdict;
      // Still unknown, or settled meanwhile by someone else (an operator, a later status): leave it.
      if (v.kind === "interrupted" || v.kind === "undetermined" || d.ledger.get(row.actionId)?.state !== "unknown") {
        return { actionId: row.actionId, state: d.ledger.get(row.actionId)?.state ?? row.state };
      }
      const settled = d.settler.settle(row.actionId, v, {
        by: "observation",
        timedOut: row.timedOut,
        record: outcome.record,
        status: outcome.status,
        notes: ["settled by observation after the arm's link came back", ...outcome.notes],
      });
      d.log.info(
        { action_id: row.actionId, state: settled.state },
        "unknown action settled by observation after the link came back",
      );
      return { actionId: row.actionId, state: settled.state };
    }),
  );
}
