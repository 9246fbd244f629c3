import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ArmbridgeError } from "../../errors.js";
import { ROUTES } from "../../wire/routes.js";

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
 * Connections served at once. Room for the event streams (--max-event-streams,
 * default 16), a few consoles and CLI calls, and blocking calls in flight.
 * A connection beyond it is still read up to its request's headers and then
 * answered 503 ARMB_ERR_HTTP_BUSY with `Retry-After` and `Connection: close`,
 * never dropped: a reset tells a client nothing, and its pool may hold the
 * socket for the next request (RFC 9110 §15.6.4: 503 with Retry-After is how
 * a server says it is overloaded for now). A HALT is served even then.
 */
export const DEFAULT_MAX_HTTP_CONNECTIONS = 64;
/**
 * Beyond this many times the cap, Node closes new connections at once
 * (net.Server.maxConnections): a flood that will not even send headers is
 * bounded, and those answered busy close after their answer.
 */
const HARD_CAP_FACTOR = 4;

export interface HttpPortLimits {
  /** Connections open at once (default DEFAULT_MAX_HTTP_CONNECTIONS). */
  readonly maxConnections?: number | undefined;
  /** Default HTTP_HEADERS_TIMEOUT_MS. */
  readonly headersTimeoutMs?: number | undefined;
  /** Default HTTP_REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs?: number | undefined;
}

export async function bindHttpPort(
  options: { readonly host: string; readonly port: number } & HttpPortLimits,
): Promise<BoundHttpPort> {
  const server = createServer({
    headersTimeout: options.headersTimeoutMs ?? HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: options.requestTimeoutMs ?? HTTP_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, options.headersTimeoutMs ?? TIMEOUT_CHECK_MS),
  });
  const cap = options.maxConnections ?? DEFAULT_MAX_HTTP_CONNECTIONS;
  server.maxConnections = cap * HARD_CAP_FACTOR;
  const overCap = countConnections(server, cap);
  let handler: RequestListener = answerStarting;
  server.on("request", (request, response) => {
    if (overCap.has(request.socket) && !servedOverCap(request)) answerBusy(response, cap);
    else handler(request, response);
  });
  const address = options.host.includes(":") ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        error.code === "EADDRINUSE"
          ? new ArmbridgeError("ARMB_ERR_HTTP_PORT_IN_USE", { address }, { cause: error })
          : new ArmbridgeError(
              "ARMB_ERR_HTTP_LISTEN",
              { address, reason: error.code ?? error.message },
              { cause: error },
            ),
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
    serveWith(h) {
      handler = h;
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        // Idle keep-alive sockets would hold close() open; busy ones finish their request first.
        server.close(() => resolve());
        server.closeIdleConnections();
      })),
  };
}

/** Counts open connections; those opened while `cap` were already open are returned marked. */
function countConnections(server: Server, cap: number): WeakSet<Socket> {
  const overCap = new WeakSet<Socket>();
  let open = 0;
  server.on("connection", (socket: Socket) => {
    open++;
    socket.once("close", () => open--);
    if (open > cap) overCap.add(socket);
  });
  return overCap;
}

/** A stop request always stops: HALT is served on a connection beyond the cap too. */
function servedOverCap(request: IncomingMessage): boolean {
  return request.method === ROUTES.halt.method && request.url?.split("?")[0] === ROUTES.halt.path;
}

/** 503 and the connection closed after it (its body, if any, is not read), so no client sends on it again. */
function answerBusy(response: ServerResponse, limit: number): void {
  const e = new ArmbridgeError("ARMB_ERR_HTTP_BUSY", { limit });
  response
    .writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1", connection: "close" })
    .end(JSON.stringify({ error: { code: e.code, message: e.message } }));
}

function answerStarting(_request: IncomingMessage, response: ServerResponse): void {
  const e = new ArmbridgeError("ARMB_ERR_HTTP_STARTING");
  response
    .writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1" })
    .end(JSON.stringify({ error: { code: e.code, message: e.message } }));
}
