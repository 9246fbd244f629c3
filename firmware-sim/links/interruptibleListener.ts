import type { Server, Socket } from "node:net";
import type { Logger } from "pino";
import type { DeviceLink } from "./DeviceLink.js";

/**
 * close() and interrupt() of a link that listens on 127.0.0.1: an interrupt
 * stops listening (a host's connect is refused, ECONNREFUSED, as with the
 * process gone or a ser2net bridge restarting), drops the open connection,
 * and listens again on the same port after `ms`.
 */
export function interruptibleListener(
  server: Server,
  port: number,
  current: () => Socket | undefined,
  logger: Logger,
): Pick<DeviceLink, "close" | "interrupt"> {
  let closed = false;
  let reopen: NodeJS.Timeout | undefined;
  const stopListening = (): Promise<void> =>
    server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  return {
    async close() {
      closed = true;
      clearTimeout(reopen);
      current()?.destroy();
      await stopListening();
    },
    async interrupt(ms, onBack) {
      if (closed) return;
      clearTimeout(reopen);
      // close() calls back once the open connection is gone too: stop listening, then drop it.
      const stopped = stopListening();
      current()?.destroy();
      await stopped;
      logger.info({ ms }, "link interrupted on cue");
      reopen = setTimeout(() => {
        reopen = undefined;
        if (closed) return;
        const onError = (error: Error): void =>
          logger.error({ err: error.message, port }, "could not listen again after the interruption");
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
