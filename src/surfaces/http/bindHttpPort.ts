import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ArmbridgeError } from "../../errors.js";

/**
 * An HTTP port held before the bridge exists. `serve` binds first so that a
 * taken port is said at once, before the arm is touched (the device
 * handshake, start-up reconciliation); until the app takes over, every
 * request is answered 503 in the API's error shape.
 */
export interface BoundHttpPort {
  /** The bound address as given (`127.0.0.1`, `::`...). */
  readonly host: string;
  /** `http://HOST:PORT` with the port actually bound. */
  readonly url: string;
  readonly server: Server;
  /** Hands requests to `handler` from now on (fastify's serverFactory). */
  serveWith(handler: RequestListener): void;
  /** Stops listening; idempotent. */
  close(): Promise<void>;
}

/**
 * How long a client may take to send a request's headers, and the whole
 * request with its body (ms). A request here is at most 64 KiB of JSON: a
 * few seconds are plenty on any link, and a client that trickles bytes (a
 * slowloris, token or not) no longer holds a connection for Node's default
 * 300 s. Answers are not bounded by these: a call that waits minutes for a
 * motion to settle, or an event stream, is sent after its request was
 * received in full (Node checks only connections whose request is still
 * arriving: https://nodejs.org/docs/latest-v20.x/api/http.html#serverrequesttimeout).
 */
export const HTTP_HEADERS_TIMEOUT_MS = 5_000;
export const HTTP_REQUEST_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past those timeouts (its default, 30 s, would let one live 30 s longer). */
const TIMEOUT_CHECK_MS = 1_000;
/**
 * Connections open at once; beyond it Node closes new ones at once
 * (net.Server.maxConnections). Room for the event streams (--max-event-streams,
 * default 16), a few consoles and CLI calls, and blocking calls in flight.
 */
export const DEFAULT_MAX_HTTP_CONNECTIONS = 64;

export interface HttpPortLimits {
  /** Connections open at once (default DEFAULT_MAX_HTTP_CONNECTIONS). */
  readonly maxConnections?: number | undefined;
  /** Default HTTP_HEADERS_TIMEOUT_MS. */
  readonly headersTimeoutMs?: number | undefined;
  /** Default HTTP_REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs?: number | undefined;
}

export async function bindHttpPort(options: { readonly host: string; readonly port: number } & HttpPortLimits): Promise<BoundHttpPort> {
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: options.requestTimeoutMs ?? HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, options.headersTimeoutMs ?? TIMEOUT_CHECK_MS),
    },
    answerStarting,
  );
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_HTTP_CONNECTIONS;
  const address = options.host.includes(":") ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        error.code === "EADDRINUSE"
          ? new ArmbridgeError("ARMB_ERR_HTTP_PORT_IN_USE", { address }, { cause: error })
          : new ArmbridgeError("ARMB_ERR_HTTP_LISTEN", { address, reason: error.code ?? error.message }, { cause: error }),
      );
    };
    server.once("error", onError);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const shownHost = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  let closing: Promise<void> | undefined;
  return {
    host: options.host,
    url: `http://${shownHost}:${bound.port}`,
    server,
    serveWith(handler) {
      server.removeListener("request", answerStarting);
      server.on("request", handler);
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        // Idle keep-alive sockets would hold close() open; busy ones finish their request first.
        server.close(() => resolve());
        server.closeIdleConnections();
      })),
  };
}

function answerStarting(_request: IncomingMessage, response: ServerResponse): void {
  const e = new ArmbridgeError("ARMB_ERR_HTTP_STARTING");
  response.writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1" }).end(JSON.stringify({ error: { code: e.code, message: e.message } }));
}
