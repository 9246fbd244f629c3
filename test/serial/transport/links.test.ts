import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { isArmbridgeError } from "../../../src/errors.js";
import { ExponentialBackoff } from "../../../src/transport/link/ExponentialBackoff.js";
import { linkForUrl, openLink } from "../../../src/transport/link/openLink.js";
import { SerialPortLink } from "../../../src/transport/link/SerialPortLink.js";
import { TcpLink } from "../../../src/transport/link/TcpLink.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function echoServer(): Promise<{ port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("data", (chunk) => socket.write(chunk));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, sockets };
}

describe("linkForUrl", () => {
  it.each(["tcp://127.0.0.1:4000", "tcp://localhost:1", "tcp://[::1]:65535"])("%s is a TCP link", (url) => {
    expect(linkForUrl(url)).toBeInstanceOf(TcpLink);
  });

  it.each(["/dev/ttyACM0", "/tmp/armbridge-sim-x/tty", "COM3"])("%s is a serial device", (url) => {
    expect(linkForUrl(url)).toBeInstanceOf(SerialPortLink);
  });

  it.each([
    "",
    "dev/ttyUSB0",
    "tcp://127.0.0.1",
    "tcp://127.0.0.1:0",
    "tcp://127.0.0.1:99999",
    "tcp://h:1/path",
    "udp://h:1",
    "http://x:80",
  ])("%j is ARMB_ERR_LINK_URL", (url) => {
    let error: unknown;
    try {
      linkForUrl(url);
    } catch (e) {
      error = e;
    }
    expect(isArmbridgeError(error, "ARMB_ERR_LINK_URL")).toBe(true);
  });
});

describe("TcpLink", () => {
  it("carries bytes both ways and reports the peer hanging up as a loss", async () => {
    const { port, sockets } = await echoServer();
    const link = await openLink(`tcp://127.0.0.1:${port}`);
    const received: number[] = [];
    link.onData((chunk) => received.push(...chunk));
    const closes: (Error | undefined)[] = [];
    link.onClose((error) => closes.push(error));
    link.write(Uint8Array.from([1, 2, 0, 3]));
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (received.length >= 4) {
          clearInterval(t);
          resolve();
        }
      }, 2);
    });
    expect(received).toEqual([1, 2, 0, 3]);
    sockets[0]!.destroy();
    await new Promise<void>((resolve) => link.onClose(() => resolve()));
    expect(closes).toHaveLength(1);
    expect(closes[0]).toBeInstanceOf(Error);
    expect(link.isOpen).toBe(false);
    // The same link opens again: that is how the transport reconnects.
    await link.open();
    expect(link.isOpen).toBe(true);
    await link.close();
    await link.close();
    expect(closes.at(-1)).toBeUndefined();
  });

  it("a refused connection is ARMB_ERR_LINK_OPEN", async () => {
    const { port } = await echoServer();
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error: unknown = await openLink(`tcp://127.0.0.1:${port}`).catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_LINK_OPEN")).toBe(true);
  });
});

describe("SerialPortLink", () => {
  it("a missing device is ARMB_ERR_LINK_OPEN", async () => {
    const error: unknown = await openLink("/dev/armbridge-no-such-tty").catch((e: unknown) => e);
    expect(isArmbridgeError(error, "ARMB_ERR_LINK_OPEN")).toBe(true);
  });
});

describe("ExponentialBackoff", () => {
  it("doubles up to the cap without jitter", () => {
    const b = new ExponentialBackoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    expect(Array.from({ length: 6 }, () => b.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    b.reset();
    expect(b.next()).toBe(100);
  });

  it("jitter draws from [d·(1−jitter), d]", () => {
    const low = new ExponentialBackoff({ initialMs: 100, maxMs: 1000, jitter: 0.5, random: () => 0.999999 });
    const high = new ExponentialBackoff({ initialMs: 100, maxMs: 1000, jitter: 0.5, random: () => 0 });
    expect([low.next(), low.next()]).toEqual([50, 100]);
    expect([high.next(), high.next()]).toEqual([100, 200]);
  });
});
