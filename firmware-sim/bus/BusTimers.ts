import type { Clock, ClockTimer } from "../Clock.js";

/** The bus simulator's timers: every one cleared on close, and none fires after it. */
export class BusTimers {
  readonly #clock: Clock;
  readonly #pending = new Set<ClockTimer>();
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  now(): number {
    return this.#clock.now();
  }

  after(ms: number, fn: () => void, options?: { readonly precise: boolean }): ClockTimer {
    const timer = this.#clock.setTimer(
      ms,
      () => {
        this.#pending.delete(timer);
        if (!this.#closed) fn();
      },
      options,
    );
    this.#pending.add(timer);
    return timer;
  }

  clear(timer: ClockTimer): void {
    this.#clock.clearTimer(timer);
    this.#pending.delete(timer);
  }

  close(): void {
    this.#closed = true;
    for (const t of this.#pending) this.#clock.clearTimer(t);
    this.#pending.clear();
  }
}
