import { createServer, type Socket } from "node:net";
import type { Logger } from "pino";
import type { ByteStreamEndpoint, DeviceLink } from "./DeviceLink.js";
import { admitOneHost } from "./admitOneHost.js";
import { listenOnLoopback } from "./listenOnLoopback.js";

/**
 * Raw TCP on 127.0.0.1, as ser2net exposes a serial port: bytes in, bytes
 * out, no framing of its own. One host at a time, like a UART: a second
 * connection is refused while the first is open.
 */
export async function startTcpLink(options: { readonly port: number; readonly endpoint: ByteStreamEndpoint; readonly logger: Logger }): Promise<DeviceLink> {
  const { endpoint, logger } = options;
  let current: Socket | undefined;
  const refuse = (socket: Socket): void => {
    logger.warn({ remote: socket.remotePort }, "second host refused: one host at a time");
    socket.destroy();
  };
  const server = createServer(admitOneHost((socket) => {
    current = socket;
    socket.setNoDelay(true);
    logger.info({ remote: socket.remotePort }, "host connected");
    endpoint.attach((bytes) => {
      if (!socket.destroyed) socket.write(bytes);
    });
    socket.on("data", (chunk: Buffer) => endpoint.receive(chunk));
    socket.on("error", (error) => logger.info({ err: error.message }, "host socket error"));
    socket.on("close", () => {
      if (current === socket) {
        current = undefined;
        endpoint.detach();
        logger.info("host disconnected");
      }
    });
  }, refuse));
  const port = await listenOnLoopback(server, options.port);
  let closed = false;
  let reopen: NodeJS.Timeout | undefined;
  return {
    url: `tcp://127.0.0.1:${port}`,
    async close() {
      closed = true;
      clearTimeout(reopen);
      current?.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async interrupt(ms, onBack) {
      if (closed) return;
      clearTimeout(reopen);
      // Not listening, so a host's connect is refused (ECONNREFUSED), as with the process gone.
      // close() calls back once the open connection is gone too: stop listening, then drop it.
      const stopped = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      current?.destroy();
      await stopped;
      logger.info({ ms }, "link interrupted on cue");
      reopen = setTimeout(() => {
        reopen = undefined;
        if (closed) return;
        const onError = (error: Error): void => logger.error({ err: error.message, port }, "could not listen again after the interruption");
        server.once("error", onError);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", onError);
          logger.info("link back after the interruption");
          onBack?.(Date.now());
        });
      }, ms);
    },
  };
}
