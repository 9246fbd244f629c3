/** One axis of a synchronised motion: how far it travels and the caps it must stay within. */
export interface SynchronizedAxis {
  readonly distance: number;
  readonly maxVelocity: number;
  readonly maxAcceleration: number;
}

/** Progress along the straight joint-space line at time t: s ∈ [0, 1] and its first two derivatives. */
export interface PathProgress {
  readonly s: number;
  readonly ds: number;
  readonly dds: number;
}

/**
 * One trapezoidal time law s(t) shared by every axis of a motion: each axis
 * moves `distance × s(t)`, so all of them start, cruise and stop together on
 * the straight line. `accelS` is the length of the acceleration (and of the
 * deceleration) phase; the cruise lasts `durationS − 2 × accelS` (none for a
 * triangle). `peakRate` is max ds/dt, reached over the whole cruise.
 */
export interface SynchronizedTrapezoid {
  readonly durationS: number;
  readonly accelS: number;
  readonly peakRate: number;
  /** The instants where the law changes phase, and its end: where a piecewise-cubic spline through it is exact. */
  readonly breaks: readonly number[];
  at(t: number): PathProgress;
}

/**
 * The shortest trapezoidal time law that keeps every axis within its own
 * velocity and acceleration caps, and no shorter than `minDurationS` (then
 * the whole law is stretched in time, lowering both peaks).
 *
 * With c = durationS − accelS (the time from the start to the start of the
 * deceleration), the peak rate is 1/c and the acceleration 1/(accelS·c): axis
 * i needs c ≥ |dᵢ|/vᵢ and accelS·c ≥ |dᵢ|/aᵢ, with accelS ≤ c. The shortest
 * law takes c = max |dᵢ|/vᵢ and accelS = max |dᵢ|/aᵢ ÷ c, or a triangle
 * (accelS = c = √(max |dᵢ|/aᵢ)) when that would make accelS longer than c.
 */
export function synchronizedTrapezoid(axes: readonly SynchronizedAxis[], minDurationS: number): SynchronizedTrapezoid {
  let byVelocity = 0;
  let byAcceleration = 0;
  for (const a of axes) {
    const d = Math.abs(a.distance);
    if (d === 0) continue;
    byVelocity = Math.max(byVelocity, d / a.maxVelocity);
    byAcceleration = Math.max(byAcceleration, d / a.maxAcceleration);
  }
  let accelS: number;
  let c: number;
  if (byAcceleration === 0) {
    accelS = c = minDurationS / 2;
  } else if (Math.sqrt(byAcceleration) >= byVelocity) {
    accelS = c = Math.sqrt(byAcceleration);
  } else {
    c = byVelocity;
    accelS = byAcceleration / byVelocity;
  }
  const stretch = accelS + c < minDurationS ? minDurationS / (accelS + c) : 1;
  accelS *= stretch;
  c *= stretch;
  const durationS = accelS + c;
  const acceleration = 1 / (accelS * c);
  const peakRate = 1 / c;
  // Nothing travels: the end alone.
  const breaks = byAcceleration === 0 ? [durationS] : c > accelS ? [accelS, c, durationS] : [accelS, durationS];
  return {
    durationS,
    accelS,
    peakRate,
    breaks,
    at(t: number): PathProgress {
      if (t <= 0) return { s: 0, ds: 0, dds: 0 };
      if (t >= durationS) return { s: 1, ds: 0, dds: 0 };
      if (t < accelS) return { s: 0.5 * acceleration * t * t, ds: acceleration * t, dds: acceleration };
      if (t <= c) return { s: accelS / (2 * c) + (t - accelS) * peakRate, ds: peakRate, dds: 0 };
      const left = durationS - t;
      return { s: 1 - 0.5 * acceleration * left * left, ds: acceleration * left, dds: -acceleration };
    },
  };
}
