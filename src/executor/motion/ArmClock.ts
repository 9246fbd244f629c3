import type { MotionPace, Transport } from "../../transport/Transport.js";

/**
 * Time as the arm spends it on a motion: wall time × the arm's pace
 * (Transport.pace), integrated. A plan of 10 s takes 10 s of arm time at any
 * speed slider, 33 s of wall time at 30 %, and none at all while the arm is
 * paused. The executor counts its wait budgets and observation windows in it,
 * so a slowed motion is not taken for a lost one and a paused one is known as
 * paused. A transport that does not report a pace runs at 1: arm time is wall
 * time. A pace above 1 (a simulation faster than real time) counts as 1: a
 * budget never ends sooner than its wall time.
 */
export interface ArmClock {
  /** Arm-time ms since the clock started. */
  elapsed(): number;
  /** The pace now (undefined: the arm does not say), and its factor as counted (0..1). */
  pace(): MotionPace | undefined;
  factor(): number;
  /** Wall ms the arm has been paused for, or undefined while it is not paused. */
  pausedForMs(): number | undefined;
  onChange(listener: () => void): () => void;
  dispose(): void;
}

export function armClock(transport: Transport, axes: readonly string[], now: () => number): ArmClock {
  const read = (): MotionPace | undefined => transport.pace?.of(axes);
  const counted = (p: MotionPace | undefined): number => (p ? (p.paused ? 0 : Math.min(1, Math.max(0, p.factor))) : 1);
  let pace = read();
  let factor = counted(pace);
  let elapsedAtLast = 0;
  let last = now();
  let pausedSince = pace?.paused ? last : undefined;
  const listeners = new Set<() => void>();
  const off = transport.pace?.onChange(() => {
    const t = now();
    elapsedAtLast += (t - last) * factor;
    last = t;
    pace = read();
    factor = counted(pace);
    if (pace?.paused) pausedSince ??= t;
    else pausedSince = undefined;
    for (const l of [...listeners]) l();
  });
  return {
    elapsed: () => elapsedAtLast + (now() - last) * factor,
    pace: () => pace,
    factor: () => factor,
    pausedForMs: () => (pausedSince === undefined ? undefined : now() - pausedSince),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose: () => {
      off?.();
      listeners.clear();
    },
  };
}

export type ArmTimerEnd = "elapsed" | "paused";

/**
 * Calls `fire` once, when the clock's arm time reaches `deadline()` (which
 * may move later) or when a pause has lasted `pauseMaxMs` of wall time.
 * Re-armed whenever the pace changes; `cancel` clears it.
 */
export function armTimer(
  clock: ArmClock,
  deadline: () => number,
  pauseMaxMs: number,
  fire: (end: ArmTimerEnd) => void,
): { rearm(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const end = (why: ArmTimerEnd): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    off();
    fire(why);
  };
  const check = (): void => {
    if (done) return;
    const paused = clock.pausedForMs();
    if (paused !== undefined && paused >= pauseMaxMs) return end("paused");
    if (paused === undefined && clock.elapsed() >= deadline()) return end("elapsed");
    arm();
  };
  const arm = (): void => {
    clearTimeout(timer);
    if (done) return;
    const paused = clock.pausedForMs();
    let waitMs: number;
    if (paused !== undefined) waitMs = pauseMaxMs - paused;
    else {
      const remaining = deadline() - clock.elapsed();
      const f = clock.factor();
      // A pace of 0 that is not a pause (a stalled feedback stream) waits for the next change, checked now and then.
      waitMs = f > 0 ? remaining / f : 1000;
    }
    timer = setTimeout(check, Math.max(0, Math.min(waitMs, 2 ** 31 - 1)));
  };
  const off = clock.onChange(() => arm());
  arm();
  return {
    rearm: arm,
    cancel: () => {
      done = true;
      clearTimeout(timer);
      off();
    },
  };
}
