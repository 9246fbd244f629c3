import type { ArmConfig } from "../config/ArmConfig.js";
import type { ActionRow } from "../ledger/ActionRow.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import type { Logger } from "../observability/logger.js";
import type { ToolRegistry } from "./ToolRegistry.js";
import type { Transport } from "../transport/Transport.js";
import type { ActionSettler } from "./ActionSettler.js";
import { observeUntilSettled, type ObserveOutcome } from "./observeUntilSettled.js";
import { observeFnOf } from "./resolveLater.js";
import { sameIncarnation } from "./sameIncarnation.js";

export interface ReconcileDeps {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly settler: ActionSettler;
  readonly log: Logger;
  readonly now: () => number;
  /** Ends the observations (shutdown during start-up). */
  readonly signal: AbortSignal;
}

/**
 * On start: actions left `started` by a crash are settled by observation —
 * the same judgement as after a timeout, voiding before the pose may speak —
 * or become `unknown` (quarantined). Nothing is ever re-sent.
 */
export async function reconcileStarted(d: ReconcileDeps): Promise<ActionRow[]> {
  return Promise.all(
    d.ledger.inState("started").map(async (row) => {
      const command = row.command;
      let outcome: ObserveOutcome | undefined;
      if (command) {
        outcome = await observeUntilSettled({
          transport: d.transport,
          observe: observeFnOf(d.registry, row.tool),
          command,
          config: d.config,
          // After a crash the arm may also have rebooted: void only what the same incarnation never heard of.
          mayVoid: sameIncarnation(row.armIncarnation, d.transport.armIncarnation?.()),
          signal: d.signal,
          now: d.now,
        });
      }
      const why = "the bridge stopped while this motion was under way";
      const verdict = outcome === undefined || outcome.verdict.kind === "undetermined" ? { kind: "undetermined" as const, why } : outcome.verdict;
      const settled = d.settler.settle(row.actionId, verdict, { by: "observation", timedOut: false, record: outcome?.record, status: outcome?.status, notes: outcome?.notes ?? [] });
      d.log.info({ action_id: row.actionId, state: settled.state }, "reconciled action left started by a previous run");
      return settled;
    }),
  );
}
