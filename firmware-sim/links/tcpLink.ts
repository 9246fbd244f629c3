import { createServer, type Socket } from "node:net";
import type { Logger } from "pino";
import type { ByteStreamEndpoint, DeviceLink } from "./DeviceLink.js";
import { admitOneHost } from "./admitOneHost.js";
import { interruptibleListener } from "./interruptibleListener.js";
import { listenOnLoopback } from "./listenOnLoopback.js";

/**
 * Raw TCP on 127.0.0.1, as ser2net exposes a serial port: bytes in, bytes
 * out, no framing of its own. One host at a time, like a UART: a second
 * connection is refused while the first is open.
 */
export async function startTcpLink(options: {
  readonly port: number;
  readonly endpoint: ByteStreamEndpoint;
  readonly logger: Logger;
}): Promise<DeviceLink> {
  const { endpoint, logger } = options;
  let current: Socket | undefined;
  const refuse = (socket: Socket): void => {
    logger.warn({ remote: socket.remotePort }, "second host refused: one host at a time");
    socket.destroy();
  };
  const server = createServer(
    admitOneHost((socket) => {
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
    }, refuse),
  );
  const port = await listenOnLoopback(server, options.port);
  return {
    url: `tcp://127.0.0.1:${port}`,
    ...interruptibleListener(server, port, () => current, logger),
  };
}
