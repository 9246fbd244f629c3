import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Keeps a request that may wait for minutes from being cut by the server's
 * own timers. Node's `requestTimeout` and `headersTimeout` bound only how long
 * a request takes to *arrive*, so they never cut an answer being waited for;
 * a socket idle timeout (`server.timeout`, `setTimeout` on the socket) would,
 * since nothing crosses the socket while a motion or an approval is awaited.
 * This turns the socket's idle timeout off for the life of this request and
 * puts the server's back once the answer is written (the socket may serve
 * further requests on keep-alive).
 */
export function holdOpen(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket as typeof request.raw.socket | null;
  // In-process `inject` requests have a stand-in socket without timers.
  if (typeof socket?.setTimeout !== "function") return;
  socket.setTimeout(0);
  const server = request.server.server as { timeout?: number } | undefined;
  reply.raw.once("finish", () => {
    const idle = server?.timeout ?? 0;
    if (idle > 0 && !socket.destroyed) socket.setTimeout(idle);
  });
}

/**
 * A signal that fires when the client goes away before its answer is
 * written: the response's close without a finished write. Checked at once
 * too, since a client that closed while its body was still being read has
 * already gone by the time the handler runs. Returns the signal and the
 * function that stops listening (in `finally`).
 */
export function callerGone(reply: FastifyReply): { readonly signal: AbortSignal; readonly dispose: () => void } {
  const gone = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) gone.abort("the caller's connection closed");
  };
  reply.raw.on("close", onClose);
  if (reply.raw.destroyed || reply.raw.socket?.destroyed === true) onClose();
  return { signal: gone.signal, dispose: () => reply.raw.off("close", onClose) };
}
