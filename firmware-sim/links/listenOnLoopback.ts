import type { Server } from "node:net";

/**
 * Listens on 127.0.0.1 (the simulator serves this machine only) and resolves
 * with the port actually bound — the one the OS chose for port 0. A bind
 * error (port taken) rejects instead of surfacing later as an "error" event.
 */
export async function listenOnLoopback(server: Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === "object" && address ? address.port : port;
}
