export interface Backoff {
  /** The ceiling of the first retry's delay. */
  readonly initialMs: number;
  /** No delay is ever longer than this: the back-off is bounded. */
  readonly maxMs: number;
  /** Growth per retry; default 2. */
  readonly factor?: number | undefined;
}

/**
 * The delay before retry `n` (1-based): an exponential ceiling, capped at
 * `maxMs`, with "equal jitter" (half of it fixed, half random) so clients
 * that failed together do not retry together, yet never retry at once.
 */
export function backoffDelayMs(n: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * (backoff.factor ?? 2) ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
