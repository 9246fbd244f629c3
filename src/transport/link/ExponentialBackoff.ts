export interface BackoffOptions {
  /** First delay (ms). Default 100. */
  readonly initialMs?: number;
  /** Cap on the delay (ms). Default 2000: an arm that is back answers within about that (plus one attempt). */
  readonly maxMs?: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
  /**
   * Fraction of each delay that is random, in [0, 1]. Default 0.5: a delay is
   * drawn from [d·(1−jitter), d], so bridges that lost the same ser2net
   * server do not all knock at once.
   */
  readonly jitter?: number;
  /** Source of randomness in [0, 1); injectable for tests. Default Math.random. */
  readonly random?: () => number;
}

export const DEFAULT_BACKOFF = { initialMs: 100, maxMs: 2000, factor: 2, jitter: 0.5 } as const;

/** Capped, jittered exponential delays for reconnection attempts. */
export class ExponentialBackoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? DEFAULT_BACKOFF.initialMs;
    this.maxMs = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
    this.factor = options.factor ?? DEFAULT_BACKOFF.factor;
    this.jitter = Math.min(1, Math.max(0, options.jitter ?? DEFAULT_BACKOFF.jitter));
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt; each call grows it until the cap. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt += 1;
    return Math.round(base * (1 - this.jitter * this.random()));
  }

  /** After a successful connection the next loss starts from the first delay again. */
  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}
