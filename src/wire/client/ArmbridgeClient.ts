import { en } from "zod/locales";
import { config, type ZodMiniType } from "zod/mini";
import {
  pathOf,
  ROUTES,
  STREAM_EVENTS,
  type CheckedEvent,
  type JsonRouteName,
  type RouteAnswer,
  type RouteInput,
  type RouteName,
  type RouteSpec,
} from "../routes.js";
import { ApiError, apiErrorOf, BAD_ANSWER_CODE } from "./ApiError.js";
import { readEventStream, type StreamEvent } from "./readEventStream.js";

// zod/mini carries no words of its own (the classic zod sets English on its first schema): an answer that breaks the
// contract is described in the same words in a browser as in Node.
if (config().localeError === undefined) config(en());

/** The one thing the client needs of the platform: a WHATWG fetch (a browser's, Node's, or undici's with a dispatcher). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ArmbridgeClientOptions {
  /** `http://HOST:PORT` of a running serve; "" in a page served by it (same origin). */
  readonly url: string;
  readonly token: string;
  /**
   * Default: the platform's fetch. The client sets no timeout of its own, but
   * a platform's fetch may: Node's gives up on an answer after 300 s without
   * headers or body bytes, which an approval wait outlasts. Node callers pass
   * one without those limits (src/surfaces/client/nodeFetch.ts).
   */
  readonly fetch?: FetchLike | undefined;
  /** How a failure to reach the server (or an answer cut half-way) is reported; default: the error as it came. */
  readonly connectionError?: ((error: unknown, url: string) => Error) | undefined;
  /** Called on every 401 (the console asks for a token again). */
  readonly onRefused?: (() => void) | undefined;
}

export interface RequestOptions {
  /** Ends the wait for the answer (and the request); the only limit on how long a call may take. */
  readonly signal?: AbortSignal | undefined;
  /** The request goes out even as the page closes (a console's goodbye). */
  readonly keepalive?: boolean | undefined;
  /** Extra headers (a raw route's content type, MCP's session header). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * The one client of the HTTP API, for the CLI, `agent --bridge`, `mcp
 * --bridge`, the console and the benches. Every route is called by its name
 * in the route table (src/wire/routes.ts); every JSON answer is parsed with
 * its route's schema; every error answer is an ApiError (status, registry
 * code, message).
 */
export class ArmbridgeClient {
  readonly url: string;
  readonly #token: string;
  readonly #fetch: FetchLike;
  readonly #options: ArmbridgeClientOptions;

  constructor(options: ArmbridgeClientOptions) {
    this.url = options.url.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#options = options;
  }

  /** The bearer token's header, for a caller that reads a body itself. */
  get headers(): Record<string, string> {
    return { authorization: `Bearer ${this.#token}` };
  }

  /** Route `name` with its input; its answer, parsed with the route's schema. */
  async call<N extends JsonRouteName>(
    name: N,
    ...[input, options]: object extends RouteInput<N>
      ? [input?: RouteInput<N>, options?: RequestOptions]
      : [input: RouteInput<N>, options?: RequestOptions]
  ): Promise<RouteAnswer<N>> {
    const route: RouteSpec = ROUTES[name];
    const body = (input as { body?: unknown } | undefined)?.body;
    const response = await this.send(
      name,
      input as { params?: unknown; query?: unknown } | undefined,
      body === undefined ? undefined : JSON.stringify(body),
      body === undefined
        ? options
        : { ...options, headers: { ...options?.headers, "content-type": "application/json" } },
    );
    const text = await this.#read(() => response.text());
    if (!response.ok) throw apiErrorOf(response.status, text, response.statusText);
    return this.#parse(route, response.status, text) as RouteAnswer<N>;
  }

  /**
   * Route `name` as it answers: the response to read (bytes, a stream, a
   * protocol's own body); an error answer of a JSON route throws ApiError.
   * The bearer token is added.
   */
  async send(
    name: RouteName,
    input?: { params?: unknown; query?: unknown },
    body?: string,
    options?: RequestOptions,
  ): Promise<Response> {
    const route: RouteSpec = ROUTES[name];
    const url = this.url + pathOf(route, input?.params as Record<string, string> | undefined) + queryOf(input?.query);
    // `cache` is a browser's word (Node's types lack it; its fetch accepts and ignores it).
    const init: RequestInit & { cache?: string } = {
      method: route.method,
      headers: { ...options?.headers, ...this.headers },
      cache: "no-store",
      ...(body === undefined ? {} : { body }),
      ...(options?.signal ? { signal: options.signal } : {}),
      ...(options?.keepalive === true ? { keepalive: true } : {}),
    };
    let response: Response;
    try {
      response = await this.#fetch(url, init);
    } catch (error) {
      throw this.#unreachable(error);
    }
    if (response.status === 401) this.#options.onRefused?.();
    return response;
  }

  /** Bytes (a camera frame) with the answer's headers; an error answer throws ApiError. */
  async bytes(
    name: "cameraFrame" | "actionFrame" | "approvalFrame",
    input: { params: Record<string, string>; query?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<{ blob: Blob; headers: Headers }> {
    const response = await this.send(name, input, undefined, options);
    if (!response.ok) throw apiErrorOf(response.status, await this.#read(() => response.text()), response.statusText);
    return { blob: await this.#read(() => response.blob()), headers: response.headers };
  }

  /**
   * GET /v1/events: the stream's events as they arrive, until the server ends
   * it or `signal` aborts. Refused (401, 503 too many streams): ApiError.
   */
  async events(signal: AbortSignal): Promise<AsyncGenerator<StreamEvent>> {
    const response = await this.send("events", undefined, undefined, {
      signal,
      headers: { accept: "text/event-stream" },
    });
    if (!response.ok || !response.body)
      throw apiErrorOf(response.status, await this.#read(() => response.text()), response.statusText);
    const body = response.body;
    const unreachable = (error: unknown): Error => this.#unreachable(error);
    return (async function* () {
      try {
        yield* readEventStream(body);
      } catch (error) {
        throw unreachable(error);
      }
    })();
  }

  /**
   * An event of `events()` with its data parsed by its name's schema; undefined
   * for a name the contract does not know (a newer server's, to be ignored).
   * Data that breaks the contract: ApiError ARMB_ERR_HTTP_BAD_ANSWER, for the
   * caller to report while the stream goes on.
   */
  checkEvent(block: StreamEvent): CheckedEvent | undefined {
    if (!Object.hasOwn(STREAM_EVENTS, block.event)) return undefined;
    const event = block.event as keyof typeof STREAM_EVENTS;
    const parsed = STREAM_EVENTS[event].safeParse(block.data);
    if (!parsed.success) throw badAnswer(ROUTES.events, 200, `its ${event} event: ${issuesOf(parsed.error)}`);
    // The data as it came, as #parse keeps answers.
    return { event, data: block.data } as CheckedEvent;
  }

  /** A failure while reading an answer, reported as the connection failure it is. */
  lost(error: unknown): Error {
    return this.#unreachable(error);
  }

  async #read<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      // The answer was cut half-way: as lost as a connection that never answered.
      throw this.#unreachable(error);
    }
  }

  #parse(route: RouteSpec, status: number, text: string): unknown {
    const schema = route.response as ZodMiniType;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw badAnswer(route, status, `not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw badAnswer(route, status, issuesOf(parsed.error));
    // The answer as it came: the schemas transform nothing, and a result carries fields beyond the common ones.
    return json;
  }

  #unreachable(error: unknown): Error {
    if (error instanceof Error && error.name === "AbortError") return error;
    return (
      this.#options.connectionError?.(error, this.url) ?? (error instanceof Error ? error : new Error(String(error)))
    );
  }
}

function badAnswer(route: RouteSpec, status: number, what: string): ApiError {
  return new ApiError(
    status,
    BAD_ANSWER_CODE,
    `${route.method} ${route.path} answered ${status} with a body that is not the API's contract (${what}); is the server an armbridge of another version?`,
  );
}

/** The first issues of a failed parse, each at its path. */
function issuesOf(error: {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}): string {
  const issues = error.issues.map((i) => `${i.path.map(String).join(".") || "(answer)"}: ${i.message}`);
  return issues.slice(0, 5).join("; ");
}

function queryOf(query: unknown): string {
  if (query === undefined || query === null) return "";
  const entries = Object.entries(query as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "";
  return `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
}
