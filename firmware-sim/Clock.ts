/**
 * Device time and timers, injected so unit tests can step the arm's physics
 * deterministically. `now` is monotonic milliseconds (not wall time: a wall
 * clock step must not bend a trajectory).
 */
export interface Clock {
  now(): number;
  setTimer(ms: number, fn: () => void): ClockTimer;
  clearTimer(timer: ClockTimer): void;
}

export interface ClockTimer {
  readonly id: number;
}

export function realClock(): Clock {
  const handles = new Map<number, NodeJS.Timeout>();
  let nextId = 1;
  return {
    now: () => performance.now(),
    setTimer(ms, fn) {
      const id = nextId++;
      handles.set(
        id,
        setTimeout(() => {
          handles.delete(id);
          fn();
        }, Math.max(0, ms)),
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
