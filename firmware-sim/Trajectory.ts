/**
 * One axis's planned path over time (ms, device clock). Positions are
 * evaluated on demand from closed-form segments, so the simulated arm is
 * exact at any instant a STATUS or a stop samples it, not only at ticks.
 */
export interface Trajectory {
  readonly startMs: number;
  readonly endMs: number;
  readonly from: number;
  readonly to: number;
  positionAt(ms: number): number;
  velocityAt(ms: number): number;
}

/** Shortest time (s) to travel `distance` under these limits: the bridge's own model, so both sides agree on how long a motion takes. */
export { restToRestTime as minimumDuration } from "../src/protocol/restToRestTime.js";

/**
 * A trapezoidal move from `from` to `to` lasting exactly `durationMs`, using
 * at most `maxAcceleration` when the duration allows it. When a duration is
 * imposed that the limits cannot meet (--motion-time), the profile becomes a
 * triangle with whatever acceleration that takes: the imposed time wins.
 */
export function trapezoid(
  from: number,
  to: number,
  startMs: number,
  durationMs: number,
  maxAcceleration: number,
): Trajectory {
  const d = Math.abs(to - from);
  const sign = Math.sign(to - from);
  const T = durationMs / 1000;
  if (d === 0 || T <= 0) return hold(to, startMs, startMs + Math.max(0, durationMs), from);
  let a = maxAcceleration;
  const disc = a * a * T * T - 4 * a * d;
  let v: number;
  if (disc >= 0) {
    v = (a * T - Math.sqrt(disc)) / 2;
  } else {
    a = (4 * d) / (T * T);
    v = (a * T) / 2;
  }
  const ta = v / a;
  const s = (ms: number): number => Math.min(Math.max((ms - startMs) / 1000, 0), T);
  return {
    startMs,
    endMs: startMs + durationMs,
    from,
    to,
    positionAt(ms) {
      const t = s(ms);
      if (t >= T) return to;
      let x: number;
      if (t < ta) x = 0.5 * a * t * t;
      else if (t <= T - ta) x = 0.5 * a * ta * ta + v * (t - ta);
      else x = d - 0.5 * a * (T - t) * (T - t);
      return from + sign * x;
    },
    velocityAt(ms) {
      const t = s(ms);
      if (t <= 0 || t >= T) return 0;
      if (t < ta) return sign * a * t;
      if (t <= T - ta) return sign * v;
      return sign * a * (T - t);
    },
  };
}

/** Braking from `position` at `velocity` with `deceleration` until still. */
export function brake(position: number, velocity: number, startMs: number, deceleration: number): Trajectory {
  if (velocity === 0) return hold(position, startMs, startMs);
  const sign = Math.sign(velocity);
  const v0 = Math.abs(velocity);
  const T = v0 / deceleration;
  const stopAt = position + sign * ((v0 * v0) / (2 * deceleration));
  const s = (ms: number): number => Math.min(Math.max((ms - startMs) / 1000, 0), T);
  return {
    startMs,
    endMs: startMs + T * 1000,
    from: position,
    to: stopAt,
    positionAt(ms) {
      const t = s(ms);
      return position + sign * (v0 * t - 0.5 * deceleration * t * t);
    },
    velocityAt(ms) {
      const t = s(ms);
      return t >= T ? 0 : sign * (v0 - deceleration * t);
    },
  };
}

/** Standing still at `position` (an instant stop, a zero-length move). */
export function hold(position: number, startMs: number, endMs: number, from = position): Trajectory {
  return { startMs, endMs, from, to: position, positionAt: () => position, velocityAt: () => 0 };
}
