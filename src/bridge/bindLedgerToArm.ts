import { ArmbridgeError } from "../errors.js";
import { describeArm, sameArm, writeArmRecordFile, type ArmBinding } from "../ledger/ArmBinding.js";
import type { IntentLedger } from "../ledger/IntentLedger.js";
import type { Logger } from "../observability/logger.js";

/** What to do with a ledger recorded against another arm. */
export type OtherArmPolicy =
  /** Refuse to start (ARMB_ERR_LEDGER_OTHER_ARM): the default. */
  | "refuse"
  /** An operator says it is the same arm (renamed, new firmware): rebind the ledger to it. */
  | "adopt";

/**
 * Checks that the ledger's rows belong to the arm just opened, before any of
 * them is reconciled, quarantined or settled against it; binds a ledger that
 * belongs to no arm yet. Returns a warning to show when an operator adopted it.
 */
export function bindLedgerToArm(
  ledger: IntentLedger,
  current: Pick<ArmBinding, "name" | "identity">,
  options: { readonly policy: OtherArmPolicy; readonly logger: Logger; readonly now?: number },
): string | undefined {
  const now = options.now ?? Date.now();
  const recorded = ledger.armBinding();
  const binding: ArmBinding = { name: current.name, identity: current.identity, boundAt: now };
  let warning: string | undefined;
  if (recorded && !sameArm(recorded, current)) {
    if (options.policy === "refuse") {
      throw new ArmbridgeError("ARMB_ERR_LEDGER_OTHER_ARM", {
        path: ledger.path,
        recorded: describeArm(recorded),
        current: describeArm(current),
      });
    }
    warning = `the ledger ${ledger.path} was recorded against arm ${describeArm(recorded)}; adopted for this arm ${describeArm(current)} on the operator's word (--adopt-ledger): its open rows are now judged against this arm`;
    options.logger.warn(
      { path: ledger.path, recorded: describeArm(recorded), current: describeArm(current) },
      "ledger adopted for another arm identity by operator",
    );
  }
  const unchanged = recorded !== undefined && recorded.name === current.name && recorded.identity === current.identity;
  if (!unchanged) ledger.bindArm(binding);
  if (ledger.path !== ":memory:") writeArmRecordFile(ledger.path, unchanged && recorded ? recorded : binding);
  return warning;
}
