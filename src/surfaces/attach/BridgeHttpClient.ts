import { Agent, fetch as undiciFetch, request, type Dispatcher } from "undici";
import { ArmbridgeError } from "../../errors.js";

/** An error answer of a running serve: its status and its registry code, passed on as they came. */
export class BridgeApiError extends Error {
  override readonly name = "BridgeApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The HTTP connection to a running `armbridge serve`, for clients that may
 * wait minutes for one answer (a motion awaiting an operator's approval, a
 * slow move). Node's built-in fetch gives up on an answer after 300 s
 * without headers or 300 s without body bytes (undici's `headersTimeout` and
 * `bodyTimeout`); here both are off, and so is any other client-side limit
 * on how long an answer may take: how long to wait is the caller's signal to
 * decide. Connections are kept alive and pooled, one per request under way.
 */
export class BridgeHttpClient {
  /** `http://HOST:PORT`, without a trailing slash. */
  readonly url: string;
  readonly #token: string;
  readonly #dispatcher: Agent;

  constructor(url: string, token: string) {
    this.url = url.replace(/\/+$/, "");
    this.#token = token;
    this.#dispatcher = new Agent({
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: 10_000,
      connect: { timeout: 10_000 },
    });
  }

  /** A JSON request; an error answer throws BridgeApiError with the server's code, a connection failure ArmbridgeError ARMB_ERR_HTTP_UNREACHABLE (`connectionLost` tells them apart). */
  async json<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.url + path, {
        method,
        dispatcher: this.#dispatcher,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw this.#unreachable(error);
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (error) {
      // The answer was cut half-way: as lost as a connection that never answered.
      throw this.#unreachable(error);
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return JSON.parse(text) as T;
    let code = `HTTP_${res.statusCode}`;
    let message = text.slice(0, 300);
    try {
      const e = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
      if (typeof e?.code === "string") code = e.code;
      if (typeof e?.message === "string") message = e.message;
    } catch {
      // Not our error shape (a proxy's page): the status and the text say it.
    }
    throw new BridgeApiError(res.statusCode, code, message);
  }

  /** A streaming GET (server-sent events): the body as it arrives. */
  async stream(
    path: string,
    signal: AbortSignal,
  ): Promise<{ readonly status: number; readonly body: AsyncIterable<Buffer> }> {
    try {
      const res = await request(this.url + path, {
        method: "GET",
        dispatcher: this.#dispatcher,
        headers: { authorization: `Bearer ${this.#token}`, accept: "text/event-stream" },
        signal,
      });
      return { status: res.statusCode, body: res.body as AsyncIterable<Buffer> };
    } catch (error) {
      throw this.#unreachable(error);
    }
  }

  /**
   * Any request, its answer as it arrives (status, headers, a body to read
   * or to stream); the bearer token is added. For protocols over this
   * server's HTTP (MCP's Streamable HTTP) that read headers and bodies
   * themselves. A connection failure throws ARMB_ERR_HTTP_UNREACHABLE; an
   * aborted `signal` the AbortError, as does reading the body after it.
   */
  async send(
    method: "GET" | "POST" | "DELETE",
    path: string,
    headers: Readonly<Record<string, string>>,
    body?: string,
    signal?: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await request(this.url + path, {
        method,
        dispatcher: this.#dispatcher,
        headers: { ...headers, authorization: `Bearer ${this.#token}` },
        ...(body === undefined ? {} : { body }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw this.#unreachable(error);
    }
  }

  /** Wraps a failure while reading an answer's body: the connection was lost half-way. */
  lost(error: unknown): Error {
    return this.#unreachable(error);
  }

  /**
   * A fetch for other clients of the same server (the MCP SDK's HTTP client
   * transport) with the same no-timeout dispatcher and the bearer token.
   */
  fetch(): (url: string | URL, init?: RequestInit) => Promise<Response> {
    const token = this.#token;
    const dispatcher = this.#dispatcher;
    return async (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${token}`);
      // undici's own fetch, so that the dispatcher is honoured; its Response is the same WHATWG shape.
      return await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        headers: Object.fromEntries(headers),
        dispatcher,
      });
    };
  }

  async close(): Promise<void> {
    await this.#dispatcher.destroy().catch(() => undefined);
  }

  #unreachable(error: unknown): Error {
    if (error instanceof Error && error.name === "AbortError") return error;
    const e = error as { code?: string; message?: string; cause?: { code?: string } };
    return new ArmbridgeError(
      "ARMB_ERR_HTTP_UNREACHABLE",
      { url: this.url, reason: e.code ?? e.cause?.code ?? e.message ?? String(error) },
      { cause: error },
    );
  }
}

/** True for an error that says the connection failed (nothing, or not all, of the answer came back): worth re-attaching. */
export function connectionLost(error: unknown): boolean {
  return error instanceof ArmbridgeError && error.code === "ARMB_ERR_HTTP_UNREACHABLE";
}
