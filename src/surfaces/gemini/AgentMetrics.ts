/** p50 / p95 / max of a run's samples, in ms (nearest-rank). */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/**
 * What a run's model link did, for the transcript's `run_ended` line and the
 * agent's outcome line: keys in snake_case like the rest of those records.
 */
export interface AgentMetrics {
  /** Unary: generateContent calls that answered. Live: messages we sent that the model answered. */
  readonly model_requests: number;
  /** Unary: from the request to its answer, retries included. Live: from our message to the model's first output after it. */
  readonly model_latency_ms: LatencySummary | null;
  /** Unary requests repeated after a transient failure. */
  readonly retries: number;
  /** Live connections replaced after a goAway or a loss, resumed or fresh. */
  readonly reconnects: number;
  /** Of those, sessions resumed from a handle, and fresh sessions (no handle, or the resume refused). */
  readonly resumed: number;
  readonly fresh_sessions: number;
  /** From the old connection's end (or our decision to leave it) to the new one's setupComplete. */
  readonly reconnect_ms: LatencySummary | null;
  /** Calls that repeated an undelivered motion and joined it instead of moving again. */
  readonly joined_repeats: number;
}

/** Collects AgentMetrics during one run. */
export class AgentMetricsRecorder {
  readonly #latency: number[] = [];
  readonly #reconnect: number[] = [];
  #retries = 0;
  #resumed = 0;
  #fresh = 0;
  #joined = 0;

  modelAnswered(latencyMs: number): void {
    this.#latency.push(latencyMs);
  }

  retried(): void {
    this.#retries++;
  }

  reconnected(durationMs: number, mode: "resumed" | "fresh"): void {
    this.#reconnect.push(durationMs);
    if (mode === "resumed") this.#resumed++;
    else this.#fresh++;
  }

  joined(): void {
    this.#joined++;
  }

  summary(): AgentMetrics {
    return {
      model_requests: this.#latency.length,
      model_latency_ms: summarise(this.#latency),
      retries: this.#retries,
      reconnects: this.#reconnect.length,
      resumed: this.#resumed,
      fresh_sessions: this.#fresh,
      reconnect_ms: summarise(this.#reconnect),
      joined_repeats: this.#joined,
    };
  }
}

function summarise(samples: readonly number[]): LatencySummary | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0);
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), max: at(1) };
}
