import { asArmbridgeError, type ArmbridgeError } from "../../errors.js";
import type { AgentEnd } from "./AgentEvent.js";

export type LiveOutcome =
  { readonly kind: "ended"; readonly ended: AgentEnd } | { readonly kind: "failed"; readonly error: ArmbridgeError };

/**
 * How a Live run ends, once: the first outcome wins. It also holds the
 * run's background work (answering calls, telling missed outcomes), which
 * the run awaits before it returns; a failure there fails the run.
 */
export class LiveRun {
  readonly outcome: Promise<LiveOutcome>;
  #resolve: (o: LiveOutcome) => void = () => undefined;
  #finished = false;
  readonly #work: Promise<void>[] = [];

  constructor() {
    this.outcome = new Promise<LiveOutcome>((resolve) => (this.#resolve = resolve));
  }

  get finished(): boolean {
    return this.#finished;
  }

  finish(outcome: LiveOutcome): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#resolve(outcome);
  }

  fail(error: unknown): void {
    this.finish({ kind: "failed", error: asArmbridgeError(error) });
  }

  track(work: Promise<void>): void {
    this.#work.push(work.catch((error: unknown) => this.fail(error)));
  }

  /** Waits until no work is left; work may add work (a note waits for settlements). */
  async drain(): Promise<void> {
    while (this.#work.length > 0) await Promise.all(this.#work.splice(0));
  }
}
