import { asArmbridgeError } from "../../errors.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { LinkLoss, LinkState, Transport } from "../../transport/Transport.js";
import type { ExecutorEvent } from "../ExecutorEvent.js";
import type { RecordedObservationDeps } from "./observeRecordedAction.js";
import { reobserveAfterReturn } from "./reobserveAfterReturn.js";

export interface LinkReturnDeps {
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly log: Logger;
  readonly emit: (event: ExecutorEvent) => void;
  /** The one path that observes recorded actions (its signal ends with the bridge). */
  readonly recorded: RecordedObservationDeps;
}

/**
 * The arm answers again after a loss of its link, or came back as a new
 * incarnation behind a link that stayed up: say so, and look again at
 * every unknown action (reobserveAfterReturn). What was in flight was
 * never re-sent; calls still waiting on it settle by their own observation.
 * Returns the unsubscribe function.
 */
export function watchLinkReturns(d: LinkReturnDeps): () => void {
  // A loss from before this watch existed was answered by reconciliation at start.
  let answered: LinkLoss | undefined = d.transport.linkState().last_loss;
  return d.transport.onLinkState((state: LinkState) => {
    const loss = state.last_loss;
    if (
      state.state !== "connected" ||
      !loss ||
      loss.returned_at === undefined ||
      loss === answered ||
      d.recorded.signal.aborted
    )
      return;
    if (answered && answered.lost_at === loss.lost_at && answered.returned_at === loss.returned_at) return;
    answered = loss;
    const unknown = d.ledger.inState("unknown").map((r) => r.actionId);
    d.log.warn(
      { loss, reobserving: unknown },
      "the arm's link came back: nothing is re-sent; unknown actions are looked at again",
    );
    d.emit({ type: "link_returned", loss, incarnation: state.incarnation, reobserving: unknown });
    if (unknown.length === 0) return;
    void reobserveAfterReturn(d.recorded).catch((error: unknown) =>
      d.log.error(
        { err: asArmbridgeError(error).toJSON() },
        "looking again at unknown actions after the link came back failed",
      ),
    );
  });
}
