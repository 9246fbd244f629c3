import type { ServerResponse } from "node:http";
import type { FastifyRequest } from "fastify";

/**
 * A fastify request as the web-standard `Request` the MCP SDK's handlers
 * take (the SDK's own Node bridge is a separate package this one does not
 * need for one route). The body was parsed by fastify and goes along as
 * JSON again; `signal` is what ends the request when its caller goes away
 * (callerGone).
 */
export function toWebRequest(request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.raw.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  headers.delete("content-length");
  const hasBody = request.method === "POST" && request.body !== undefined;
  return new Request(`http://${request.host}${request.url}`, {
    method: request.method,
    headers,
    signal,
    ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
  });
}

/**
 * Writes a web `Response` on the raw Node response, chunk by chunk as the
 * body yields them (an SSE stream stays a stream: each event is written when
 * it comes). A client that goes away cancels the body, which tells the
 * producer.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const onClose = (): void => {
    if (!res.writableFinished) reader.cancel().catch(() => undefined);
  };
  res.on("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", onClose);
  }
}
