import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { BusProtocol, StatusReply } from "../../src/protocol/bus/index.js";

/**
 * What the proxy does to the servos' replies on their way to the host, as a
 * loaded host, a network hop or a USB adapter can: hold one back (and,
 * like any byte stream, everything behind it), cut each into pieces,
 * deliver replies that arrive together in the opposite order, or deliver one
 * twice. Replies are counted from 0 in the order the servos sent them.
 */
export interface ReplyShaping {
  /** Reply number → ms it is held back; what follows waits behind it. */
  readonly hold?: ReadonlyMap<number, number>;
  /** Deliver every reply in pieces of at most this many bytes, each written on its own. */
  readonly splitBytes?: number;
  /** Replies that arrive within `reorderWindowMs` of each other (a sync read's) are delivered last first. */
  readonly reorderWindowMs?: number;
  /** Reply numbers delivered twice, back to back. */
  readonly duplicate?: ReadonlySet<number>;
}

export interface ReplyShapingProxy {
  /** tcp://127.0.0.1:PORT: give it to the bridge instead of the simulator's link. */
  readonly link: string;
  /** Replies the servos sent so far. */
  readonly replies: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a simulated bus (`--link tcp`) that passes the
 * host's instructions through as they are and reshapes the servos' replies.
 * It reads the replies with the protocol's own decoder so that it knows
 * where each begins and ends.
 */
export async function startReplyShapingProxy(
  target: string,
  protocol: BusProtocol,
  shaping: ReplyShaping,
): Promise<ReplyShapingProxy> {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  let count = 0;
  const server: Server = createServer((host) => {
    const device = createConnection({ host: url.hostname, port: Number(url.port) });
    sockets.add(host).add(device);
    // Pieces go out when the plan says, not when Nagle's algorithm would gather them.
    host.setNoDelay(true);
    device.setNoDelay(true);
    host.on("data", (chunk: Buffer) => device.write(chunk));
    const decoder = protocol.createDecoder();
    let batch: (StatusReply & { readonly n: number })[] = [];
    // One queue out, in order: a held reply holds back what follows it, as on a byte stream.
    const queue: { at: number; bytes: Uint8Array }[] = [];
    let releaseAt = 0;
    let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
    // One piece per turn of the event loop, so each leaves as its own TCP segment.
    const pump = (): void => {
      timer = undefined;
      const next = queue[0];
      if (next === undefined) return;
      if (next.at <= performance.now()) {
        queue.shift();
        if (!host.destroyed) host.write(next.bytes);
        timer = setImmediate(pump);
      } else {
        timer = setTimeout(pump, next.at - performance.now());
      }
    };
    const deliver = (bytes: Uint8Array, delayMs: number): void => {
      releaseAt = Math.max(releaseAt, performance.now() + delayMs);
      const size = shaping.splitBytes ?? bytes.length;
      for (let i = 0; i < bytes.length; i += size) queue.push({ at: releaseAt, bytes: bytes.subarray(i, i + size) });
      if (timer === undefined) timer = setTimeout(pump, Math.max(0, releaseAt - performance.now()));
    };
    const send = (reply: StatusReply & { readonly n: number }): void => {
      const bytes = protocol.status(reply.id, reply.error, reply.data);
      deliver(bytes, shaping.hold?.get(reply.n) ?? 0);
      if (shaping.duplicate?.has(reply.n)) deliver(bytes, 0);
    };
    device.on("data", (chunk: Buffer) => {
      for (const packet of decoder.push(chunk)) {
        const reply = protocol.statusOf(packet);
        if (!reply) continue;
        const numbered = { ...reply, n: count++ };
        if (shaping.reorderWindowMs === undefined) {
          send(numbered);
          continue;
        }
        batch.push(numbered);
        if (batch.length === 1) {
          setTimeout(() => {
            const out = batch.reverse();
            batch = [];
            for (const r of out) send(r);
          }, shaping.reorderWindowMs);
        }
      }
    });
    const end = (): void => {
      clearTimeout(timer as NodeJS.Timeout);
      clearImmediate(timer as NodeJS.Immediate);
      host.destroy();
      device.destroy();
    };
    host.on("close", end).on("error", end);
    device.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  return {
    link: `tcp://127.0.0.1:${address.port}`,
    get replies() {
      return count;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
