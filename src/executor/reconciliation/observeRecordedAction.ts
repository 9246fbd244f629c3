import type { ArmConfig } from "../../config/ArmConfig.js";
import type { ActionRow } from "../../ledger/ActionRow.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";
import type { Logger } from "../../observability/logger.js";
import type { Transport } from "../../transport/Transport.js";
import type { ActionSettler } from "../motion/ActionSettler.js";
import { observeUntilSettled, type ObserveOutcome } from "../motion/observeUntilSettled.js";
import { observeFnOf } from "./resolveLater.js";
import { sameIncarnation } from "../motion/sameIncarnation.js";
import type { ToolRegistry } from "../toolContract/ToolRegistry.js";

/** What looking again at recorded actions needs: the ledger's rows, the arm, the tools' observations and the one settlement path. */
export interface RecordedObservationDeps {
  readonly config: ArmConfig;
  readonly registry: ToolRegistry;
  readonly transport: Transport;
  readonly ledger: IntentLedger;
  readonly settler: ActionSettler;
  readonly log: Logger;
  readonly now: () => number;
  /** Ends the observations (shutdown). */
  readonly signal: AbortSignal;
}

/**
 * Observes the arm for an action the ledger recorded and no call is waiting
 * on any more (a start after a crash, a link that came back): the judgement
 * every observation uses, by the row's tool's own observation, voiding only
 * what the same incarnation of the arm never heard of — after a crash or a
 * power loss the arm may have rebooted. Undefined when the row keeps no
 * command to observe by. Nothing is ever re-sent.
 */
export async function observeRecordedAction(
  d: RecordedObservationDeps,
  row: ActionRow,
): Promise<ObserveOutcome | undefined> {
  const command = row.command;
  if (!command) return undefined;
  return observeUntilSettled({
    transport: d.transport,
    observe: observeFnOf(d.registry, row.tool),
    command,
    config: d.config,
    mayVoid: sameIncarnation(row.armIncarnation, d.transport.identity?.incarnation()),
    signal: d.signal,
    now: d.now,
  });
}
