/**
 * `limits.motions_per_minute`: a token bucket shared by every motion a
 * bridge starts, whoever asks (a looping model, several surfaces at once).
 * It holds at most `perMinute` tokens and refills at perMinute / 60 per
 * second; a motion takes one just before its intent is recorded, so a motion
 * refused for any other reason costs nothing. Full at start: a burst of up to
 * `perMinute` motions, then one every 60 / perMinute seconds.
 */
export class MotionRateLimit {
  readonly perMinute: number;
  #tokens: number;
  #at: number;

  constructor(perMinute: number, now: number) {
    this.perMinute = perMinute;
    this.#tokens = perMinute;
    this.#at = now;
  }

  /** Whether a motion may start now, and if not, how long until it may (ms, rounded up). */
  check(now: number): { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number } {
    const tokens = this.#refilled(now);
    if (tokens >= 1) return { ok: true };
    return { ok: false, retryAfterMs: Math.max(1, Math.ceil(((1 - tokens) * 60_000) / this.perMinute)) };
  }

  /** Takes a token for a motion about to start; the same answer `check` gives. */
  take(now: number): { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number } {
    const verdict = this.check(now);
    if (verdict.ok) this.#tokens -= 1;
    return verdict;
  }

  /** Tokens left now (for `GET /v1/state`). */
  tokens(now: number): number {
    return this.#refilled(now);
  }

  #refilled(now: number): number {
    // A clock that steps back refills nothing (and does not drain).
    const elapsed = Math.max(0, now - this.#at);
    this.#tokens = Math.min(this.perMinute, this.#tokens + (elapsed * this.perMinute) / 60_000);
    this.#at = Math.max(this.#at, now);
    return this.#tokens;
  }
}
