/** One server-sent event: its name and its data, parsed as JSON. */
export interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

/** A body as it arrives: a WHATWG stream (fetch, browsers) or any async iterable of byte chunks (undici). */
export type EventBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

async function* chunksOf(body: EventBody): AsyncGenerator<Uint8Array> {
  if (!("getReader" in body)) {
    for await (const chunk of body) yield chunk;
    return;
  }
  // Not every browser iterates a ReadableStream with for-await: read it by hand.
  const reader = body.getReader();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The server-sent events of a body (GET /v1/events, an MCP stream) as they
 * arrive, until it ends: `event:` and `data:` of each block, the data lines
 * joined and parsed as JSON. Comments (the heartbeat) and blocks that are not
 * JSON are skipped. Breaking out of the loop releases the body.
 */
export async function* readEventStream(body: EventBody): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of chunksOf(body)) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length === 0) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.join("\n"));
      } catch {
        // A block that is not JSON is not one of ours.
        continue;
      }
      yield { event, data: parsed };
    }
  }
}
