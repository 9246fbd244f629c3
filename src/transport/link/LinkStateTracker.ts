import type { LinkState, LinkStateName } from "../Transport.js";

export interface LinkStateTrackerOptions {
  /** Our clock, epoch ms. */
  readonly now?: () => number;
  /** Epoch ms of the newest status, read when a state is asked for (it changes at 100 Hz; listeners are not told of it). */
  readonly lastStatusAt: () => number | undefined;
  /** Listener faults are reported here, never thrown into the transport. */
  readonly onListenerError?: (error: unknown) => void;
}

/**
 * The part of every transport that keeps its `LinkState` and tells
 * listeners when it changes. A change is a new state, attempt or detail;
 * setting the same values again tells nobody, so a transport may call `set`
 * from every status cycle or poll.
 */
export class LinkStateTracker {
  readonly #now: () => number;
  readonly #lastStatusAt: () => number | undefined;
  readonly #onListenerError: ((error: unknown) => void) | undefined;
  readonly #listeners = new Set<(state: LinkState) => void>();
  #state: LinkStateName = "down";
  #since: number;
  #attempt: number | undefined;
  #detail: string | undefined = "not opened yet";

  constructor(options: LinkStateTrackerOptions) {
    this.#now = options.now ?? Date.now;
    this.#lastStatusAt = options.lastStatusAt;
    this.#onListenerError = options.onListenerError;
    this.#since = this.#now();
  }

  get name(): LinkStateName {
    return this.#state;
  }

  snapshot(): LinkState {
    const last = this.#lastStatusAt();
    return {
      state: this.#state,
      since: this.#since,
      ...(this.#attempt !== undefined ? { attempt: this.#attempt } : {}),
      ...(last !== undefined && Number.isFinite(last) && last > 0 ? { last_status_at: last } : {}),
      ...(this.#detail !== undefined ? { detail: this.#detail } : {}),
    };
  }

  /** Moves to `state`; `since` restarts only when the state itself changes (a new attempt keeps "reconnecting since …"). */
  set(state: LinkStateName, extra: { readonly attempt?: number | undefined; readonly detail?: string | undefined } = {}): void {
    const attempt = state === "reconnecting" ? extra.attempt : undefined;
    if (state === this.#state && attempt === this.#attempt && extra.detail === this.#detail) return;
    if (state !== this.#state) this.#since = this.#now();
    this.#state = state;
    this.#attempt = attempt;
    this.#detail = extra.detail;
    const snapshot = this.snapshot();
    for (const listener of [...this.#listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        this.#onListenerError?.(error);
      }
    }
  }

  subscribe(listener: (state: LinkState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
