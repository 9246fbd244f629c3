/**
 * The calls of `POST /v1/calls` requests still being answered, by call id:
 * what `POST /v1/calls/cancel` ends. A cancel ends the named calls' waits —
 * those calls only, never the rest of their batch — the way the executor's
 * run signal would (nothing sent yet: skipped, saying it was cancelled; a
 * motion's wait: settled by observation), while the request itself stays
 * open and answers with every result, so a client that cancels still learns
 * what became of each call.
 */
export class CallWaits {
  /** Call id → one controller per request holding a call under that id. */
  readonly #byId = new Map<string, Set<AbortController>>();

  /**
   * Registers a request's call ids: the signal of each (what the executor's
   * `callSignals` takes), and the function that forgets them (in `finally`).
   */
  register(ids: readonly string[]): {
    readonly signals: ReadonlyMap<string, AbortSignal>;
    readonly forget: () => void;
  } {
    const mine = new Map<string, AbortController>();
    for (const id of new Set(ids)) {
      const controller = new AbortController();
      mine.set(id, controller);
      const set = this.#byId.get(id) ?? new Set<AbortController>();
      set.add(controller);
      this.#byId.set(id, set);
    }
    const forget = (): void => {
      for (const [id, controller] of mine) {
        const set = this.#byId.get(id);
        set?.delete(controller);
        if (set?.size === 0) this.#byId.delete(id);
      }
    };
    return { signals: new Map([...mine].map(([id, c]) => [id, c.signal])), forget };
  }

  /** Ends the waits of the calls under these ids; returns the ids that were found waiting. */
  cancel(ids: readonly string[], reason: string): string[] {
    const found: string[] = [];
    for (const id of new Set(ids)) {
      const set = this.#byId.get(id);
      if (!set) continue;
      found.push(id);
      for (const c of set) c.abort(reason);
    }
    return found;
  }
}
