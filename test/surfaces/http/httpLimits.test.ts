import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import {
  DEFAULT_MAX_HTTP_CONNECTIONS,
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_REQUEST_TIMEOUT_MS,
} from "../../../src/surfaces/http/bindHttpPort.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "../../support/FakeArm.js";

/**
 * The API on a real socket: a client that trickles its headers or body is
 * cut after a few seconds (not Node's default 300 s), token or not; a caller
 * without the token gets its 401 and a closed connection; connections are
 * capped; and a call that blocks longer than any of these (a motion) is still
 * answered. Tests shorten the timeouts (the limits are options); the
 * defaults are checked to be a few seconds.
 */
const TOKEN = "a-long-enough-test-token";
let bridge: Bridge | undefined;
let server: RunningHttpServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  await bridge?.close();
  server = undefined;
  bridge = undefined;
});

async function start(
  limits: { headersTimeoutMs?: number; requestTimeoutMs?: number; maxConnections?: number },
  motionMs = 20,
): Promise<URL> {
  const config = loadConfig();
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config, { motionMs: () => motionMs }) },
    dataDir: ":memory:",
  });
  server = await startHttpServer(bridge, { token: TOKEN, port: 0, limits });
  return new URL(server.url);
}

/** Waits until the server holds `n` connections. */
async function connectionsOpen(n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = await new Promise<number>((resolve) => server?.app.server.getConnections((_e, c) => resolve(c)));
    if (open >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never ${n} connections open`);
}

/** A raw connection that sends `text` and reports what came back and when it was closed (ms after connecting), or "open" after `waitMs`. */
function rawExchange(
  url: URL,
  text: string,
  waitMs: number,
): Promise<{ reply: string; closedAfterMs: number | "open" }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let reply = "";
    const s = connect(Number(url.port), url.hostname, () => s.write(text));
    sockets.push(s);
    const timer = setTimeout(() => resolve({ reply, closedAfterMs: "open" }), waitMs);
    s.on("data", (d: Buffer) => (reply += d.toString()));
    s.on("error", () => undefined);
    s.on("close", () => {
      clearTimeout(timer);
      resolve({ reply, closedAfterMs: Date.now() - t0 });
    });
  });
}

describe("HTTP limits on a real socket", () => {
  it("defaults: headers within 5 s, the whole request within 10 s, 64 connections", () => {
    expect(HTTP_HEADERS_TIMEOUT_MS).toBe(5_000);
    expect(HTTP_REQUEST_TIMEOUT_MS).toBe(10_000);
    expect(DEFAULT_MAX_HTTP_CONNECTIONS).toBe(64);
  });

  it("headers that trickle in are answered 408 and the connection closed", async () => {
    const url = await start({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const r = await rawExchange(
      url,
      `GET /v1/state HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n`,
      5000,
    );
    expect(r.closedAfterMs).not.toBe("open");
    expect(r.reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it("a body that trickles in, with the token, is answered 408 and the connection closed", async () => {
    const url = await start({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const head = `POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"calls":`;
    const r = await rawExchange(url, head, 5000);
    expect(r.closedAfterMs).not.toBe("open");
    expect(r.reply).toMatch(/^HTTP\/1\.1 408/);
  });

  it("without the token: 401 at once, and the connection is closed, its body never read", async () => {
    const url = await start({});
    const head = `POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"calls":`;
    const r = await rawExchange(url, head, 3000);
    expect(r.reply).toMatch(/^HTTP\/1\.1 401/);
    expect(r.reply.toLowerCase()).toContain("connection: close");
    expect(r.closedAfterMs).not.toBe("open");
  });

  it("a call that blocks longer than the request timeout (a motion) is answered in full", async () => {
    const url = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 }, 2000);
    const res = await fetch(new URL("/v1/calls", url), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ calls: [{ id: "slow", name: "move_joints", args: { positions: { wrist_3: 0.5 } } }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { responses: { response: { output?: { status: string } } }[] };
    expect(body.responses[0]?.response.output?.status).toBe("done");
  });

  it("connections beyond the cap are answered 503 with Retry-After and Connection: close, never reset; those within it are served", async () => {
    const url = await start({ maxConnections: 2 });
    const idle = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const kept = await Promise.all([rawExchange(url, idle, 800), rawExchange(url, idle, 800)]);
    for (const k of kept) expect(k.reply).toMatch(/^HTTP\/1\.1 200/);
    const third = await rawExchange(url, idle, 2000);
    expect(third.reply).toMatch(/^HTTP\/1\.1 503/);
    expect(third.reply.toLowerCase()).toContain("retry-after: 1");
    expect(third.reply.toLowerCase()).toContain("connection: close");
    expect(third.reply).toContain("ARMB_ERR_HTTP_BUSY");
    expect(third.closedAfterMs).not.toBe("open");
  });

  it("under slow bodies holding every connection, a client's POST is answered 503 (not reset) and a HALT is still served", async () => {
    const url = await start({ maxConnections: 2, headersTimeoutMs: 2000, requestTimeoutMs: 4000 });
    const slow = `POST /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"calls":`;
    const held = [rawExchange(url, slow, 6000), rawExchange(url, slow, 6000)];
    await connectionsOpen(2);
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(new URL(path, url), {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const busy = await post("/v1/calls", { calls: [{ id: "while-busy", name: "get_arm_state", args: {} }] });
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(busy.headers.get("connection")).toBe("close");
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe("ARMB_ERR_HTTP_BUSY");
    const halt = await post("/v1/halt", { operator: "h4" });
    expect(halt.status).toBe(200);
    expect(((await halt.json()) as { halted: boolean }).halted).toBe(true);
    for (const s of sockets) s.destroy();
    await Promise.all(held);
  });
});
