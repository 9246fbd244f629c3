/**
 * bench:memory — does any client grow the bridge's memory without bound?
 *
 * Runs `armbridge serve` (a real process: its RSS is what a person at the arm
 * depends on) on firmware-sim, then
 *   1. opens 100 `GET /v1/events` streams whose sockets never read (paused:
 *      once the kernel's buffers fill, every write meets backpressure), while
 *   2. sending 10,000 calls with invented tool names (batches of 64),
 * and prints the bridge's RSS before, at the peak, and after the clients
 * close. Issue #8's target: growth under 50 MB, and back down after close.
 * Figures only; nothing here asserts on them.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSimulator } from "../firmware-sim/spawnSimulator.js";
import { killLiveServeChildren, spawnServe } from "./crashloop/ServeChild.js";

const STREAMS = 100;
const CALLS = 10_000;
const BATCH = 64;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

function openStuckStream(url: URL, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.write(`GET /v1/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
      // Never read: the bridge's writes must meet backpressure, not an endless buffer.
      socket.pause();
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-bench-memory-"));
  const token = "bench-memory-token-0123456789";
  const sim = await spawnSimulator({ link: "tcp", seed: 1, effectsLog: join(dir, "effects.jsonl"), logFile: join(dir, "sim.log") });
  const serve = await spawnServe({ link: sim.link, dataDir: join(dir, "data"), token, logFile: join(dir, "serve.log"), logLevel: "warn", readyTimeoutMs: 30_000 });
  const url = new URL(serve.url);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssMb(serve.pid);
    const sockets: Socket[] = [];
    // Past the stream cap the bridge answers 503 into a socket that never reads; each still costs it a connection.
    for (let i = 0; i < STREAMS; i++) sockets.push(await openStuckStream(url, token));
    let peak = rssMb(serve.pid);
    let sent = 0;
    let batchNo = 0;
    const started = Date.now();
    while (sent < CALLS) {
      const n = Math.min(BATCH, CALLS - sent);
      const calls = Array.from({ length: n }, (_, k) => ({ id: `mem-${batchNo}-${k}`, name: `invented_tool_${sent + k}`, args: {} }));
      const res = await fetch(`${serve.url}/v1/calls`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ calls }) });
      await res.arrayBuffer();
      sent += n;
      batchNo++;
      if (batchNo % 10 === 0) peak = Math.max(peak, rssMb(serve.pid));
    }
    peak = Math.max(peak, rssMb(serve.pid));
    const metrics = await (await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    for (const s of sockets) s.destroy();
    // Let the bridge notice the closes and its heap settle.
    await new Promise((r) => setTimeout(r, 3000));
    const after = rssMb(serve.pid);
    const figures = {
      connections_opened: sockets.length,
      calls_sent: sent,
      calls_seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
      metrics_bytes: metrics.length,
      rss_before_mb: Number(before.toFixed(1)),
      rss_peak_mb: Number(peak.toFixed(1)),
      rss_after_close_mb: Number(after.toFixed(1)),
      growth_peak_mb: Number((peak - before).toFixed(1)),
      growth_after_close_mb: Number((after - before).toFixed(1)),
    };
    process.stdout.write(`bench:memory (target: growth < 50 MB, back down after the clients close)\n${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    await serve.stop(3000);
    await sim.stop(3000);
    rmSync(dir, { recursive: true, force: true });
  }
}

process.on("exit", killLiveServeChildren);
main().catch((error: unknown) => {
  process.stderr.write(`bench:memory failed: ${String(error)}\n`);
  killLiveServeChildren();
  process.exitCode = 1;
});
