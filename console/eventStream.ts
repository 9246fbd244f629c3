import type { ApiClient } from "./api.js";

/** The browser's own stream of GET /v1/events: separate from the arm link, which the bridge reports. */
export type StreamStatus =
  | { readonly state: "connecting"; readonly since: number }
  | { readonly state: "live"; readonly since: number }
  | { readonly state: "reconnecting"; readonly since: number; readonly attempt: number; readonly reason: string }
  | { readonly state: "refused"; readonly since: number };

export interface EventStreamHandlers {
  readonly onEvent: (event: string, data: unknown) => void;
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

/** Splits one SSE block into its event name and data; comments (heartbeats) give null. */
export function parseEventBlock(block: string): { event: string; data: string } | null {
  let event = "message";
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trim();
  }
  return data ? { event, data } : null;
}

/** Reads the stream until `signal` aborts, reconnecting every second after a drop; stops for good on 401. */
export async function runEventStream(
  api: ApiClient,
  handlers: EventStreamHandlers,
  signal: AbortSignal,
): Promise<void> {
  let attempt = 0;
  let downSince = Date.now();
  handlers.onStatus({ state: "connecting", since: downSince });
  while (!signal.aborted) {
    let reason = "connection closed";
    try {
      const response = await fetch("/v1/events", { headers: api.headers, cache: "no-store", signal });
      if (response.status === 401) {
        api.refused();
        handlers.onStatus({ state: "refused", since: Date.now() });
        return;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      attempt = 0;
      handlers.onStatus({ state: "live", since: Date.now() });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += chunk.value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = parseEventBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (block) handlers.onEvent(block.event, JSON.parse(block.data) as unknown);
        }
      }
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    if (signal.aborted) return;
    if (attempt === 0) downSince = Date.now();
    attempt += 1;
    handlers.onStatus({ state: "reconnecting", since: downSince, attempt, reason });
    await sleep(RETRY_MS, signal);
  }
}
