import type { ActionRow } from "../../ledger/ActionRow.js";
import { QUARANTINES } from "../../ledger/ActionRow.js";
import type { IntentLedger } from "../../ledger/IntentLedger.js";

/**
 * Which resources are refused because an action on them is `unknown`.
 * The ledger is the truth; this is its index, rebuilt from the ledger at
 * start and updated whenever an action's state changes, so a check on the
 * hot path costs no query.
 */
export class Quarantine {
  /** action id → resources it holds */
  readonly #byAction = new Map<string, readonly string[]>();

  static fromLedger(ledger: IntentLedger): Quarantine {
    const q = new Quarantine();
    for (const row of ledger.inState("unknown")) q.update(row);
    return q;
  }

  /** Applies an action's current ledger state. */
  update(row: ActionRow): void {
    if (QUARANTINES[row.state]) this.#byAction.set(row.actionId, row.resources);
    else this.#byAction.delete(row.actionId);
  }

  /** Holds resources for an action whose unknown state the ledger could not record (a ledger fault). */
  hold(actionId: string, resources: readonly string[]): void {
    this.#byAction.set(actionId, resources);
  }

  /** The unresolved actions holding any of these resources, and which of the resources they hold. */
  blocking(resources: readonly string[]): { actionIds: string[]; resources: string[] } {
    const wanted = new Set(resources);
    const actionIds: string[] = [];
    const held = new Set<string>();
    for (const [actionId, res] of this.#byAction) {
      const overlap = res.filter((r) => wanted.has(r));
      if (overlap.length) {
        actionIds.push(actionId);
        for (const r of overlap) held.add(r);
      }
    }
    return { actionIds: actionIds.sort(), resources: [...held].sort() };
  }

  /** resource → unresolved action ids. */
  byResource(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [actionId, res] of this.#byAction) {
      for (const r of res) out.set(r, [...(out.get(r) ?? []), actionId]);
    }
    return out;
  }

  /** Whether this action holds resources in quarantine. */
  holds(actionId: string): boolean {
    return this.#byAction.has(actionId);
  }

  actionIds(): string[] {
    return [...this.#byAction.keys()];
  }
}
