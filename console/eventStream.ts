import { ApiError } from "../src/wire/client/ApiError.js";
import type { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import type { CheckedEvent } from "../src/wire/routes.js";

/** The browser's own stream of GET /v1/events: separate from the arm link, which the bridge reports. */
export type StreamStatus =
  | { readonly state: "connecting"; readonly since: number }
  | { readonly state: "live"; readonly since: number }
  | { readonly state: "reconnecting"; readonly since: number; readonly attempt: number; readonly reason: string }
  | { readonly state: "refused"; readonly since: number };

export interface EventStreamHandlers {
  /** An event whose data fits the contract (one of a name the contract does not know is skipped). */
  readonly onEvent: (event: CheckedEvent) => void;
  /** An event whose data breaks the contract (ApiError ARMB_ERR_HTTP_BAD_ANSWER): reported, and the stream goes on. */
  readonly onBadEvent: (error: unknown) => void;
  readonly onStatus: (status: StreamStatus) => void;
}

const RETRY_MS = 1000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Reads the stream until `signal` aborts, reconnecting every second after a drop; stops for good on 401. */
export async function runEventStream(
  api: ArmbridgeClient,
  handlers: EventStreamHandlers,
  signal: AbortSignal,
): Promise<void> {
  let attempt = 0;
  let downSince = Date.now();
  handlers.onStatus({ state: "connecting", since: downSince });
  while (!signal.aborted) {
    let reason = "connection closed";
    try {
      // A 401 has told the page already (the client's onRefused).
      const events = await api.events(signal);
      attempt = 0;
      handlers.onStatus({ state: "live", since: Date.now() });
      for await (const block of events) {
        let checked: CheckedEvent | undefined;
        try {
          checked = api.checkEvent(block);
        } catch (error) {
          handlers.onBadEvent(error);
          continue;
        }
        if (checked) handlers.onEvent(checked);
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        handlers.onStatus({ state: "refused", since: Date.now() });
        return;
      }
      reason =
        error instanceof ApiError ? `HTTP ${error.status}` : error instanceof Error ? error.message : String(error);
    }
    if (signal.aborted) return;
    if (attempt === 0) downSince = Date.now();
    attempt += 1;
    handlers.onStatus({ state: "reconnecting", since: downSince, attempt, reason });
    await sleep(RETRY_MS, signal);
  }
}
