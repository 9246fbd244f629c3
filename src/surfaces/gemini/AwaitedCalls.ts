import type { DispatchedCall } from "./dispatchLiveCalls.js";
import type { MissCause } from "./UndeliveredMotions.js";

/** A dispatched call whose response the current session still expects, and the turn it came in. */
export interface AwaitedCall extends DispatchedCall {
  readonly turn: number;
}

/**
 * The calls the current Live session awaits responses for, by id, and why
 * our wait for any other call ended early. An entry is compared by identity:
 * a later call reusing an id is a different entry.
 */
export class AwaitedCalls {
  readonly #byId = new Map<string, AwaitedCall>();
  readonly #missed = new Map<string, MissCause>();

  get size(): number {
    return this.#byId.size;
  }

  ids(): string[] {
    return [...this.#byId.keys()];
  }

  add(call: AwaitedCall): void {
    this.#byId.set(call.call.id, call);
  }

  /** Still awaited (not answered, missed or replaced by a call reusing its id). */
  has(call: AwaitedCall): boolean {
    return this.#byId.get(call.call.id) === call;
  }

  /** The response is on its way: no longer awaited. */
  answered(calls: readonly AwaitedCall[]): void {
    for (const c of calls) if (this.has(c)) this.#byId.delete(c.call.id);
  }

  /**
   * No response will be sent for these: removed, with `cause` kept for the
   * transcript. `endWait` also ends the executor's wait (a cancellation, an
   * interruption); after a lost connection the calls run on as dispatched.
   */
  miss(ids: readonly string[], cause: MissCause, endWait: "end_wait" | "keep_waiting"): AwaitedCall[] {
    const missed: AwaitedCall[] = [];
    for (const id of ids) {
      const c = this.#byId.get(id);
      if (!c) continue;
      this.#byId.delete(id);
      this.#missed.set(id, cause);
      if (endWait === "end_wait") c.controller.abort();
      missed.push(c);
    }
    return missed;
  }

  /** Why our wait for a call that is no longer awaited ended. */
  causeOf(id: string): MissCause {
    return this.#missed.get(id) ?? "cancelled";
  }

  /** Ends the executor's wait for every awaited call (the run is over); the motions go on and are settled by observation. */
  endAllWaits(): void {
    for (const c of this.#byId.values()) c.controller.abort();
  }
}
