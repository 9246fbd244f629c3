/** One server-sent event as read off the wire, its data parsed as JSON. */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

/**
 * Reads `url`'s event stream into `events` as they arrive, until `close()`
 * (which aborts the request and waits for the reader to unwind).
 */
export function readEventStream(
  url: string,
  headers: Record<string, string>,
): { events: SseEvent[]; close(): Promise<void> } {
  const events: SseEvent[] = [];
  const abort = new AbortController();
  const done = (async () => {
    const res = await fetch(url, { headers, signal: abort.signal });
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) as unknown });
      }
    }
  })().catch(() => undefined);
  return {
    events,
    async close() {
      abort.abort();
      await done;
    },
  };
}
