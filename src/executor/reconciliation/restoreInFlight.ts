import type { ArmConfig } from "../../config/ArmConfig.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { InFlightMotions } from "../../safety/InFlightMotions.js";
import { inFlightOfRow } from "./inFlightOfRow.js";

/**
 * Counts every motion the ledger holds `started` or `unknown` as in flight
 * for the envelope, over its whole recorded path (inFlightOfRow), until it
 * is settled or confirmed. Motions whose runs are in this process keep their
 * own entries. Returns the action ids added.
 */
export function restoreInFlight(
  inFlight: InFlightMotions,
  d: { readonly ledger: IntentLedger; readonly config: ArmConfig; readonly log: Logger },
): string[] {
  const added: string[] = [];
  for (const row of [...d.ledger.inState("started"), ...d.ledger.inState("unknown")]) {
    if (inFlight.restore(row.actionId, inFlightOfRow(row, d.config))) added.push(row.actionId);
  }
  if (added.length > 0)
    d.log.warn(
      { action_ids: added },
      "motions not known to be over count as in flight for the envelope until settled or confirmed",
    );
  return added;
}
