import type { ActionRow } from "../../ledger/ActionRow.js";
import { observeRecordedAction, type RecordedObservationDeps } from "./observeRecordedAction.js";

/**
 * On start: actions left `started` by a crash are settled by observation —
 * the same judgement as after a timeout, voiding before the pose may speak —
 * or become `unknown` (quarantined). Nothing is ever re-sent.
 */
export async function reconcileStarted(d: RecordedObservationDeps): Promise<ActionRow[]> {
  return Promise.all(
    d.ledger.inState("started").map(async (row) => {
      const outcome = await observeRecordedAction(d, row);
      const why = "the bridge stopped while this motion was under way";
      const verdict =
        outcome === undefined || outcome.verdict.kind === "undetermined"
          ? { kind: "undetermined" as const, why }
          : outcome.verdict;
      const settled = d.settler.settle(row.actionId, verdict, {
        by: "observation",
        timedOut: false,
        record: outcome?.record,
        status: outcome?.status,
        notes: outcome?.notes ?? [],
      });
      d.log.info({ action_id: row.actionId, state: settled.state }, "reconciled action left started by a previous run");
      return settled;
    }),
  );
}
