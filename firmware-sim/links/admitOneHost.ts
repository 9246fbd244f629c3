import type { Socket } from "node:net";

/** How long a new host waits for the previous one's connection to finish closing. */
const HANDOVER_MS = 250;

/**
 * One host at a time, as a UART (or ser2net without kickolduser) allows:
 * a second connection is refused while the first is open. A host that
 * closes and reconnects at once — one tool after another on the command
 * line — can arrive before this side has seen the first connection close,
 * so a newcomer waits a moment for that before it is refused.
 */
export function admitOneHost(
  onHost: (socket: Socket) => void,
  refuse: (socket: Socket) => void,
): (socket: Socket) => void {
  let current: Socket | undefined;
  const take = (socket: Socket): void => {
    current = socket;
    socket.once("close", () => {
      if (current === socket) current = undefined;
    });
    onHost(socket);
  };
  return (socket) => {
    if (!current) {
      take(socket);
      return;
    }
    const previous = current;
    const timer = setTimeout(() => {
      previous.off("close", onClosed);
      if (current) refuse(socket);
      else take(socket);
    }, HANDOVER_MS);
    const onClosed = (): void => {
      clearTimeout(timer);
      // Taken already by another newcomer: this one is the second host.
      if (current && current !== previous) refuse(socket);
      else setImmediate(() => (current ? refuse(socket) : take(socket)));
    };
    previous.once("close", onClosed);
  };
}
