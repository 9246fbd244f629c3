import type { ModelRetry } from "./retryModelRequest.js";

/** Why a Live connection ended: the server's goAway, a close, a socket error, or a setup that never completed. */
export type LinkLossCause = "go_away" | "closed" | "error" | "setup_timeout";

/** How a replacement Live connection started: from a resumption handle, or as a fresh session told the run so far. */
export type SessionStart = "resumed" | "fresh";

/** What happened on the way to the model: request retries, and Live connections lost and replaced. */
export type ModelLinkEvent =
  /** Unary: a request failed transiently and will be sent again after `delayMs`. */
  | { readonly kind: "model_retry"; readonly retry: ModelRetry }
  /** Live: the server will close this connection; we leave it in `leaveInMs` (or sooner, once nothing is open). */
  | { readonly kind: "go_away"; readonly timeLeftMs: number | undefined; readonly leaveInMs: number }
  /** Live: the connection ended; these calls' results can no longer be delivered on it (their motions go on). */
  | {
      readonly kind: "connection_lost";
      readonly cause: LinkLossCause;
      readonly detail: string;
      readonly undeliveredCallIds: readonly string[];
      /** The newest resumable handle, which the next connection offers; undefined: none yet, a fresh session follows. */
      readonly handle: string | undefined;
    }
  /** Live: a connection attempt failed; the next one follows after `retryInMs`. */
  | {
      readonly kind: "reconnect_failed";
      readonly attempt: number;
      readonly attempts: number;
      readonly detail: string;
      readonly retryInMs: number;
    }
  /** Live: the server would not resume from `handle` (expired or unknown); a fresh session follows. */
  | { readonly kind: "resume_refused"; readonly handle: string; readonly detail: string }
  /** Live: a replacement connection is up (setupComplete), `durationMs` after the old one ended. */
  | {
      readonly kind: "reconnected";
      readonly mode: SessionStart;
      readonly cause: LinkLossCause;
      readonly durationMs: number;
      readonly attempts: number;
      readonly handle: string | undefined;
    }
  /** Live: the camera stream (--stream-camera) started, failed to grab, recovered or stopped. */
  | {
      readonly kind: "camera_stream";
      readonly camera: string;
      readonly state: "started" | "failing" | "recovered" | "stopped";
      readonly detail: string;
    };

/** A handle is an opaque token; a progress line shows its tail, enough to tell two apart. */
export function shortHandle(handle: string | undefined): string {
  if (handle === undefined) return "none";
  return handle.length <= 12 ? handle : `…${handle.slice(-10)}`;
}

/** The progress line for a link event. */
export function describeModelLinkEvent(event: ModelLinkEvent): string {
  switch (event.kind) {
    case "model_retry": {
      const r = event.retry;
      const from = r.delayFrom === "backoff" ? "back-off" : `the server's ${r.delayFrom}`;
      return `model request ${r.attempt}/${r.attempts} to ${r.endpoint} failed with ${r.status} (${r.message}); retrying in ${(r.delayMs / 1000).toFixed(1)} s (${from}); no tool runs again`;
    }
    case "go_away":
      return `the Live server will close this connection${event.timeLeftMs === undefined ? "" : ` in ${(event.timeLeftMs / 1000).toFixed(1)} s`} (goAway): reconnecting within ${(event.leaveInMs / 1000).toFixed(1)} s, or as soon as no call is open`;
    case "connection_lost":
      return (
        `Live connection lost (${event.cause}: ${event.detail}); ` +
        (event.undeliveredCallIds.length > 0
          ? `results of ${event.undeliveredCallIds.join(", ")} will be told to the model, their motions go on and never run twice; `
          : "") +
        (event.handle === undefined
          ? "no resumable handle yet: a fresh session follows"
          : `resuming from handle ${shortHandle(event.handle)}`)
      );
    case "reconnect_failed":
      return `Live reconnect attempt ${event.attempt}/${event.attempts} failed (${event.detail}); next in ${(event.retryInMs / 1000).toFixed(1)} s`;
    case "resume_refused":
      return `the Live server refused to resume handle ${shortHandle(event.handle)} (${event.detail}): starting a fresh session, told from the ledger what the arm did in this run`;
    case "reconnected":
      return `Live session ${event.mode === "resumed" ? `resumed from handle ${shortHandle(event.handle)}` : "started afresh"} after ${event.cause}, ${event.durationMs} ms after the old connection ended (${event.attempts} attempt${event.attempts === 1 ? "" : "s"})`;
    case "camera_stream":
      return `camera stream ${event.camera}: ${event.state}${event.detail ? ` (${event.detail})` : ""}`;
  }
}
