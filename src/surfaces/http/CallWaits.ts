/**
 * The calls of `POST /v1/calls` requests still being answered, by call id:
 * what `POST /v1/calls/cancel` ends. A cancel ends the request's waits the
 * way the executor's run signal does (nothing sent yet: skipped; a motion's
 * wait: settled by observation), while the request itself stays open and
 * answers with those results, so a client that cancels still learns what
 * became of each call.
 */
export class CallWaits {
  readonly #byId = new Map<string, Set<AbortController>>();

  /** Registers a request's call ids; returns the function that forgets them (in `finally`). */
  register(ids: readonly string[], controller: AbortController): () => void {
    for (const id of ids) {
      const set = this.#byId.get(id) ?? new Set<AbortController>();
      set.add(controller);
      this.#byId.set(id, set);
    }
    return () => {
      for (const id of ids) {
        const set = this.#byId.get(id);
        set?.delete(controller);
        if (set?.size === 0) this.#byId.delete(id);
      }
    };
  }

  /** Ends the waits of every request holding one of these ids; returns the ids that were found waiting. */
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
