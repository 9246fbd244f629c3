import type { LinkLoss, LinkState, LinkStateName } from "../Transport.js";

export interface LinkStateTrackerOptions {
  /** Our clock, epoch ms. */
  readonly now?: () => number;
  /** Epoch ms of the newest status, read when a state is asked for (it changes at 100 Hz; listeners are not told of it). */
  readonly lastStatusAt: () => number | undefined;
  /** The arm's incarnation, read when a state is asked for; a change reaches listeners with the next `set` or loss. */
  readonly incarnation?: () => string | undefined;
  /** Listener faults are reported here, never thrown into the transport. */
  readonly onListenerError?: (error: unknown) => void;
}

/** What may come with a state: the attempt under way, why, when the next try is, and a refusal's code. */
export interface LinkStateExtra {
  readonly attempt?: number | undefined;
  readonly detail?: string | undefined;
  readonly nextAttemptAt?: number | undefined;
  readonly errorCode?: string | undefined;
}

/**
 * The part of every transport that keeps its `LinkState` and tells
 * listeners when it changes. A change is a new state, attempt, detail, next
 * attempt time, error code or loss record; setting the same values again
 * tells nobody, so a transport may call `set` from every status cycle or poll.
 */
export class LinkStateTracker {
  readonly #now: () => number;
  readonly #lastStatusAt: () => number | undefined;
  readonly #incarnation: () => string | undefined;
  readonly #onListenerError: ((error: unknown) => void) | undefined;
  readonly #listeners = new Set<(state: LinkState) => void>();
  #state: LinkStateName = "down";
  #since: number;
  #extra: LinkStateExtra = { detail: "not opened yet" };
  #lastLoss: LinkLoss | undefined;

  constructor(options: LinkStateTrackerOptions) {
    this.#now = options.now ?? Date.now;
    this.#lastStatusAt = options.lastStatusAt;
    this.#incarnation = options.incarnation ?? (() => undefined);
    this.#onListenerError = options.onListenerError;
    this.#since = this.#now();
  }

  get name(): LinkStateName {
    return this.#state;
  }

  get lastLoss(): LinkLoss | undefined {
    return this.#lastLoss;
  }

  snapshot(): LinkState {
    const last = this.#lastStatusAt();
    const incarnation = this.#incarnation();
    const e = this.#extra;
    return {
      state: this.#state,
      since: this.#since,
      ...(e.attempt !== undefined ? { attempt: e.attempt } : {}),
      ...(last !== undefined && Number.isFinite(last) && last > 0 ? { last_status_at: last } : {}),
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      ...(e.nextAttemptAt !== undefined ? { next_attempt_at: e.nextAttemptAt } : {}),
      ...(e.errorCode !== undefined ? { error_code: e.errorCode } : {}),
      ...(incarnation !== undefined ? { incarnation } : {}),
      ...(this.#lastLoss !== undefined ? { last_loss: this.#lastLoss } : {}),
    };
  }

  /**
   * Moves to `state`; `since` restarts only when the state itself changes (a
   * new attempt keeps "reconnecting since …"). A `lastLoss` given here is
   * recorded in the same announcement.
   */
  set(state: LinkStateName, extra: LinkStateExtra = {}, lastLoss?: LinkLoss): void {
    // Attempts and their timing mean something only while reconnecting.
    const next: LinkStateExtra =
      state === "reconnecting"
        ? {
            attempt: extra.attempt,
            detail: extra.detail,
            nextAttemptAt: extra.nextAttemptAt,
            errorCode: extra.errorCode,
          }
        : { detail: extra.detail, errorCode: extra.errorCode };
    const e = this.#extra;
    const same =
      state === this.#state &&
      next.attempt === e.attempt &&
      next.detail === e.detail &&
      next.nextAttemptAt === e.nextAttemptAt &&
      next.errorCode === e.errorCode;
    if (same && (lastLoss === undefined || lastLoss === this.#lastLoss)) return;
    if (state !== this.#state) this.#since = this.#now();
    this.#state = state;
    this.#extra = next;
    if (lastLoss !== undefined) this.#lastLoss = lastLoss;
    this.#tell();
  }

  /** Records the newest loss (or its return) and tells listeners. */
  setLastLoss(loss: LinkLoss): void {
    this.#lastLoss = loss;
    this.#tell();
  }

  subscribe(listener: (state: LinkState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(): void {
    const snapshot = this.snapshot();
    for (const listener of [...this.#listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        this.#onListenerError?.(error);
      }
    }
  }
}
