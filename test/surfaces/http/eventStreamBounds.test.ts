import { connect, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

// GET /v1/events against clients that never read, on real sockets: the hub
// must drop them once their backlog passes the bound, and cap how many
// streams are open at once. Ground truth is the server's own sockets: how many
// bytes each holds unsent, and whether it was destroyed.

const TOKEN = "stream-bounds-token";
const auth = { authorization: `Bearer ${TOKEN}` };
const BACKLOG = 64 * 1024;
const MAX_STREAMS = 4;

let bridge: Bridge;
let server: RunningHttpServer;
let serverSockets: Socket[];
const clients: Socket[] = [];

beforeEach(async () => {
  const config = loadConfig();
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config) },
    dataDir: ":memory:",
  });
  server = await startHttpServer(bridge, {
    port: 0,
    token: TOKEN,
    events: { stateIntervalMs: 0, maxStreams: MAX_STREAMS, maxBacklogBytes: BACKLOG },
  });
  serverSockets = [];
  server.app.server.on("connection", (s: Socket) => serverSockets.push(s));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await server.close();
  await bridge.close();
});

/** A raw client that asks for the stream and then never reads a byte. */
async function stuckClient(): Promise<Socket> {
  const url = new URL(server.url);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  clients.push(socket);
  socket.pause();
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.write(`GET /v1/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
  return socket;
}

/** 63 calls per request, each a `settled` event (~0.5 KB) on every stream. */
async function burst(): Promise<void> {
  const calls = Array.from({ length: 63 }, (_, i) => ({ id: `c${i}`, name: `invented_${i}`, args: {} }));
  const res = await fetch(`${server.url}/v1/calls`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ calls }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

const until = async (what: string, ok: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("GET /v1/events against clients that do not read", () => {
  it("drops a stream whose unsent backlog passes the bound, and never holds much more than the bound", async () => {
    const stuck = [await stuckClient(), await stuckClient()];
    await until("both streams open on the server", () => serverSockets.length === 2);
    const [a, b] = serverSockets;
    let maxBacklog = 0;
    let bursts = 0;
    // Without a bound this loop only ends at its cap, with the backlog at
    // tens of MB; with one, the stuck streams are destroyed long before.
    while (!(a?.destroyed && b?.destroyed) && bursts < 1500) {
      await burst();
      bursts++;
      for (const s of [a, b]) if (s && !s.destroyed) maxBacklog = Math.max(maxBacklog, s.writableLength);
    }
    expect(a?.destroyed, `stream A still open after ${bursts} bursts, holding ${a?.writableLength} bytes`).toBe(true);
    expect(b?.destroyed, `stream B still open after ${bursts} bursts, holding ${b?.writableLength} bytes`).toBe(true);
    // The bound plus the event that crossed it (one settled event is well under 16 KiB).
    expect(maxBacklog).toBeLessThanOrEqual(BACKLOG + 16 * 1024);
    expect(stuck).toHaveLength(2);
  }, 60_000);

  it("keeps a client that reads", async () => {
    const res = await fetch(`${server.url}/v1/events`, { headers: auth });
    const reader = res.body!.getReader();
    let received = 0;
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        received += value.byteLength;
      }
    })();
    await stuckClient();
    await until("both streams open on the server", () => serverSockets.length === 2);
    const stuckSide = serverSockets[1];
    while (!stuckSide?.destroyed) await burst();
    // Well past the bound for the reader too, and it is still being served.
    for (let i = 0; i < 20; i++) await burst();
    expect(received).toBeGreaterThan(BACKLOG * 2);
    expect(serverSockets[0]?.destroyed).toBe(false);
    await reader.cancel();
    await reading;
  }, 60_000);

  it("caps the number of open streams with a coded 503, and admits again once one closes", async () => {
    for (let i = 0; i < MAX_STREAMS; i++) await stuckClient();
    await until("all streams open", () => serverSockets.length === MAX_STREAMS);
    // Nothing in the stuck streams yet beyond their first event, so none is dropped.
    const res = await fetch(`${server.url}/v1/events`, { headers: auth });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: { code: "ARMB_ERR_HTTP_TOO_MANY_STREAMS", message: expect.any(String) as string },
    });
    clients[0]?.destroy();
    await until("the closed stream is released", () => serverSockets[0]?.destroyed === true);
    const again = await fetch(`${server.url}/v1/events`, { headers: auth });
    expect(again.status).toBe(200);
    await again.body?.cancel();
  }, 30_000);
});
