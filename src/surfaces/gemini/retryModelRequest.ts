import { setTimeout as sleep } from "node:timers/promises";
import { ArmbridgeError } from "../../errors.js";
import { backoffDelayMs, type Backoff } from "./backoffDelayMs.js";
import { classifyModelFailure, MODEL_FAILURE_ADVICE, type ModelFailure, type SeenResponse } from "./ModelFailure.js";

export interface ModelRetryPolicy {
  /** Attempts per model request, the first included; 1 never retries. */
  readonly attempts: number;
  /** Used when the server names no delay (Retry-After, RetryInfo). */
  readonly backoff: Backoff;
  /** One attempt's own time limit; an attempt that overruns it counts as a transient timeout. */
  readonly attemptTimeoutMs: number;
}

export const DEFAULT_MODEL_RETRY_POLICY: ModelRetryPolicy = {
  attempts: 6,
  backoff: { initialMs: 1000, maxMs: 30_000 },
  attemptTimeoutMs: 120_000,
};

/** One retry, for the transcript and the progress line. */
export interface ModelRetry {
  /** The attempt that failed (1-based) and how many the policy allows. */
  readonly attempt: number;
  readonly attempts: number;
  readonly endpoint: string;
  readonly status: string;
  readonly message: string;
  readonly delayMs: number;
  readonly delayFrom: "Retry-After" | "RetryInfo" | "backoff";
}

/** Filled in by one attempt: where it went and the last HTTP response it saw. */
export interface RequestCapture {
  endpoint?: string;
  response?: SeenResponse;
}

export interface RetryModelRequestOptions {
  /** The run's signal: ends waits and attempts at once (the loop then rethrows the reason). */
  readonly signal: AbortSignal;
  /** Epoch ms of the run deadline: no wait is started that would end after it. */
  readonly deadlineAt?: number | undefined;
  readonly policy?: ModelRetryPolicy | undefined;
  /** Where the requests go, for the final error when no attempt got as far as a request. */
  readonly endpoint: string;
  readonly onRetry?: ((retry: ModelRetry) => void) | undefined;
  readonly now?: (() => number) | undefined;
  readonly random?: (() => number) | undefined;
}

/**
 * Runs `attempt` until it succeeds, retrying transient failures (408, 429,
 * 500, 502, 503, 504, reset or timed-out connections) after the delay the
 * server asked for (Retry-After, google.rpc.RetryInfo.retryDelay — the longer
 * when both are given) or else a bounded, jittered back-off, never past the
 * run deadline. Anything else, the last attempt, or a wait longer than the
 * time left ends in ARMB_ERR_GEMINI_API naming the endpoint, the status and
 * what to do.
 *
 * Only the model request is repeated. The agent loop runs a turn's tools
 * after the request succeeded, so no tool ever runs again because a request
 * failed.
 *
 * Why not the SDK's `httpOptions.retryOptions` (@google/genai 2.32
 * `ApiClient.apiCall`, on p-retry 4): it ignores Retry-After and RetryInfo,
 * its waits do not end when the abort signal fires, and a reset connection
 * (undici's "fetch failed" TypeError) is not retried at all — see
 * test/surfaces/gemini/sdkRetryOptions.test.ts.
 */
export async function retryModelRequest<T>(
  attempt: (signal: AbortSignal, capture: RequestCapture) => Promise<T>,
  options: RetryModelRequestOptions,
): Promise<T> {
  const policy = options.policy ?? DEFAULT_MODEL_RETRY_POLICY;
  const now = options.now ?? Date.now;
  const started = now();
  for (let n = 1; ; n++) {
    const capture: RequestCapture = {};
    const attemptSignal = AbortSignal.any([options.signal, AbortSignal.timeout(policy.attemptTimeoutMs)]);
    let delayMs: number;
    try {
      return await attempt(attemptSignal, capture);
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      // The attempt's own verdict on an answer (no content): not a transport failure, nothing to retry.
      if (error instanceof ArmbridgeError) throw error;
      const failure: ModelFailure = attemptSignal.aborted
        ? {
            kind: "timeout",
            transient: true,
            status: `no answer within ${policy.attemptTimeoutMs} ms`,
            message: "the attempt's time limit ran out",
          }
        : classifyModelFailure(error, capture.response);
      const endpoint = capture.endpoint ?? options.endpoint;
      const left = options.deadlineAt === undefined ? Infinity : options.deadlineAt - now();
      delayMs = failure.retryAfterMs ?? backoffDelayMs(n, policy.backoff, options.random);
      const finalWhy = !failure.transient
        ? ""
        : n >= policy.attempts
          ? `after ${n} attempts`
          : delayMs >= left
            ? `and asked to wait ${seconds(delayMs)} s, longer than the ${seconds(Math.max(0, left))} s left before the run deadline`
            : undefined;
      if (finalWhy !== undefined) throw finalError(failure, endpoint, n, now() - started, finalWhy, error);
      options.onRetry?.({
        attempt: n,
        attempts: policy.attempts,
        endpoint,
        status: failure.status,
        message: failure.message,
        delayMs,
        delayFrom: failure.retryAfterFrom ?? "backoff",
      });
    }
    // node:timers/promises clears its timer when the signal fires.
    await sleep(delayMs, undefined, { signal: options.signal }).catch(() => undefined);
    if (options.signal.aborted) throw options.signal.reason;
  }
}

function finalError(
  failure: ModelFailure,
  endpoint: string,
  attempts: number,
  elapsedMs: number,
  why: string,
  cause: unknown,
): ArmbridgeError {
  const tried =
    attempts > 1 && !why.startsWith("after")
      ? ` (attempt ${attempts}, ${seconds(elapsedMs)} s since the first)`
      : attempts > 1
        ? ` over ${seconds(elapsedMs)} s`
        : "";
  const reason = `${endpoint} failed with ${failure.status}${why ? ` ${why}` : ""}${tried}: ${failure.message}. What to do: ${MODEL_FAILURE_ADVICE[failure.kind]}`;
  return new ArmbridgeError(
    "ARMB_ERR_GEMINI_API",
    {
      reason,
      endpoint,
      status: failure.status,
      attempts,
      failure: failure.kind,
      advice: MODEL_FAILURE_ADVICE[failure.kind],
    },
    { cause },
  );
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}
