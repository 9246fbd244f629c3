/**
 * One capture in flight per camera: a request that comes while a capture
 * runs waits for that one (single-flight) instead of starting another, so a
 * burst of frame requests costs one capture, not one each — a card that
 * polls, 96 queued calls, 40 console tabs. The capture runs under a signal
 * of its own that ends when every requester waiting for it has given up;
 * each requester's own signal ends only its wait.
 */
export class SharedCapture<T> {
  #current: { readonly promise: Promise<T>; readonly controller: AbortController; waiters: number } | undefined;

  /** `start`'s result, shared with every caller that comes before it settles. Rejects with `onAbort()` when `signal` ends first. */
  join(signal: AbortSignal, start: (signal: AbortSignal) => Promise<T>, onAbort: () => Error): Promise<T> {
    if (signal.aborted) return Promise.reject(onAbort());
    let current = this.#current;
    if (!current) {
      const controller = new AbortController();
      const flight = { promise: Promise.resolve().then(() => start(controller.signal)), controller, waiters: 0 };
      this.#current = current = flight;
      const leave = (): void => {
        if (this.#current === flight) this.#current = undefined;
      };
      flight.promise.then(leave, leave);
    }
    const flight = current;
    flight.waiters++;
    return new Promise<T>((resolve, reject) => {
      const abandon = (): void => {
        flight.waiters--;
        if (flight.waiters === 0) {
          // Nobody waits for it now: the next request starts afresh rather than joining a capture that is being cut short.
          if (this.#current === flight) this.#current = undefined;
          flight.controller.abort(signal.reason);
        }
        reject(onAbort());
      };
      signal.addEventListener("abort", abandon, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener("abort", abandon);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", abandon);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}
