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

export async function bindHttpPort(options: { readonly host: string; readonly port: number }): Promise<BoundHttpPort> {
  const server = createServer(answerStarting);
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
