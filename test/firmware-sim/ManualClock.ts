import type { Clock, ClockTimer } from "../../firmware-sim/Clock.js";

/** A clock that moves only when told: timers fire in time order inside `advance`. */
export class ManualClock implements Clock {
  private t = 1000;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): ClockTimer {
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return { id };
  }

  clearTimer(timer: ClockTimer): void {
    this.timers.delete(timer.id);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= until && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = until;
  }
}
