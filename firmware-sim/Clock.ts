/**
 * Device time and timers, injected so unit tests can step the arm's physics
 * deterministically. `now` is monotonic milliseconds (not wall time: a wall
 * clock step must not bend a trajectory).
 */
export interface Clock {
  now(): number;
  /**
   * `precise`: fire within a fraction of a millisecond of the due time, not
   * up to a millisecond or two late as a plain timer does (Node's timers run
   * on libuv's millisecond loop clock). For wire-time emulation, where a
   * 2.1 ms exchange must not take 3.
   */
  setTimer(ms: number, fn: () => void, options?: { readonly precise?: boolean }): ClockTimer;
  clearTimer(timer: ClockTimer): void;
}

export interface ClockTimer {
  readonly id: number;
}

/** A word to wait on that nobody ever notifies: Atomics.wait on it is a sub-millisecond sleep. */
const SLEEP_WORD = new Int32Array(new SharedArrayBuffer(4));
/** How early a precise timer wakes on the event loop before sleeping out the rest. */
const PRECISE_LEAD_MS = 1.5;

export function realClock(): Clock {
  const handles = new Map<number, NodeJS.Timeout>();
  let nextId = 1;
  return {
    now: () => performance.now(),
    setTimer(ms, fn, options) {
      const id = nextId++;
      const due = performance.now() + Math.max(0, ms);
      const precise = options?.precise === true;
      handles.set(
        id,
        setTimeout(
          () => {
            handles.delete(id);
            // The last stretch as a real sleep (a futex wait, not a spin): it blocks this
            // process for under PRECISE_LEAD_MS, while the host waits for exactly this reply.
            const left = due - performance.now();
            if (precise && left > 0) Atomics.wait(SLEEP_WORD, 0, 0, left);
            fn();
          },
          Math.max(0, precise ? Math.floor(ms - PRECISE_LEAD_MS) : ms),
        ),
      );
      return { id };
    },
    clearTimer(timer) {
      const handle = handles.get(timer.id);
      if (handle !== undefined) clearTimeout(handle);
      handles.delete(timer.id);
    },
  };
}
