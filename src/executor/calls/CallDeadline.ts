import { reasonOf } from "./reasonOf.js";

/**
 * One call's share of the run deadline: a signal that fires at `at`, or when
 * the run itself ends (shutdown, the caller went away). The clock can be
 * paused while an operator decides on an approval request — that wait counts
 * against the approval deadline only — and the time it took is added to
 * `at` when it resumes.
 */
/** Why a call's wait ended before anything was sent: its deadline, or its run ended (cancelled, shut down, caller gone) for the reason given. */
export type CallEnd = { readonly kind: "deadline" } | { readonly kind: "ended"; readonly reason: string };

export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #run: AbortSignal;
  readonly #motion: AbortSignal;
  readonly #now: () => number;
  #at: number;
  #timer: NodeJS.Timeout | undefined;
  /** What fired first; undefined while nothing has. */
  #end: CallEnd | undefined;
  readonly #onRunAbort = (): void => this.#fire({ kind: "ended", reason: reasonOf(this.#run) });

  /** `motion`: what ends a sent motion's wait (default `run`); a caller that went away ends the waits before a send only. */
  constructor(run: AbortSignal, at: number, now: () => number, motion: AbortSignal = run) {
    this.#run = run;
    this.#motion = motion;
    this.#now = now;
    this.#at = at;
    if (run.aborted) this.#onRunAbort();
    else run.addEventListener("abort", this.#onRunAbort, { once: true });
    this.#arm();
  }

  /**
   * Why the signal fired: the run ended (with the reason it was ended for:
   * a cancel names its call, a shutdown says so), or the deadline passed.
   * Only the deadline is a spent time budget.
   */
  get end(): CallEnd {
    return this.#end ?? { kind: "deadline" };
  }

  /** Fires at the deadline or when the run ends. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The run alone (shutdown, caller gone), without the deadline's timer: what an approval wait listens to. */
  get runSignal(): AbortSignal {
    return this.#run;
  }

  /**
   * What ends the wait for a motion already sent (shutdown, the run's own
   * signal), without the deadline's timer (the motion's budget is its own)
   * and without the caller going away: a sent motion is followed to its end.
   */
  get motionSignal(): AbortSignal {
    return this.#motion;
  }

  /** Epoch ms (our clock). */
  get at(): number {
    return this.#at;
  }

  /** Runs `wait` with the clock stopped; the time it took moves the deadline back by as much. */
  async paused<T>(wait: () => Promise<T>): Promise<T> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const from = this.#now();
    try {
      return await wait();
    } finally {
      this.#at += Math.max(0, this.#now() - from);
      this.#arm();
    }
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#run.removeEventListener("abort", this.#onRunAbort);
  }

  #arm(): void {
    if (this.#controller.signal.aborted) return;
    this.#timer = setTimeout(() => this.#fire({ kind: "deadline" }), Math.max(0, this.#at - this.#now()));
  }

  #fire(end: CallEnd): void {
    if (this.#controller.signal.aborted) return;
    this.#end = end;
    this.#controller.abort();
  }
}
