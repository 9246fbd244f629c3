/**
 * bench:memory — does any client grow the bridge's memory without bound?
 *
 * Runs `armbridge serve` (a real process: its RSS is what a person at the arm
 * depends on) on firmware-sim, then, each round,
 *   1. opens 100 `GET /v1/events` streams whose sockets never read (paused:
 *      once the kernel's buffers fill, every write meets backpressure), while
 *   2. sending 10,000 calls with invented tool names (batches of 64),
 * and closes the clients. It prints the bridge's RSS before, at the peak and
 * after close, and the same three points as heap after a full GC — forced
 * inside the child through the inspector (`--inspect=127.0.0.1:0`, see
 * bench/memory/InspectorProbe.ts), so the product carries no debug route.
 * RSS alone cannot tell pages V8 and the allocator keep after growing into
 * them from a leak; the live heap after a full GC can, and a second round
 * shows whether anything accumulates per round.
 *
 * Issue #8's target: RSS growth under 50 MB, and back after the clients
 * close. The verdict lines judge growth at peak by RSS and "back" by the heap
 * after GC (within HEAP_RETURN_MB of the first baseline). Exit code 1 when a
 * verdict fails.
 *
 *   npm run bench:memory [-- --rounds N]   (default 2)
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { spawnSimulator } from "../firmware-sim/spawnSimulator.js";
import { ArmbridgeClient } from "../src/wire/client/ArmbridgeClient.js";
import { ROUTES } from "../src/wire/routes.js";
import { killLiveServeChildren, spawnServe } from "./crashloop/ServeChild.js";
import { InspectorProbe, type MemoryUsage } from "./memory/InspectorProbe.js";

const STREAMS = 100;
const CALLS = 10_000;
const BATCH = 64;
const RSS_GROWTH_LIMIT_MB = 50;
/** "Back after close": the live heap after a full GC within this of where it started. */
const HEAP_RETURN_MB = 5;

const mb = (bytes: number): number => Number((bytes / 1024 / 1024).toFixed(1));

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Number((kb / 1024).toFixed(1));
}

function openStuckStream(url: URL, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) }, () => {
      socket.write(
        `${ROUTES.events.method} ${ROUTES.events.path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
      );
      // Never read: the bridge's writes must meet backpressure, not an endless buffer.
      socket.pause();
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

const JSON_BODY = { headers: { "content-type": "application/json" } };

interface Round {
  readonly round: number;
  readonly calls_seconds: number;
  readonly metrics_bytes: number;
  readonly rss_peak_mb: number;
  /** At the highest RSS the child itself read (no GC): heap grown into, garbage included, and memory outside the V8 heap. */
  readonly at_peak_heap_total_mb: number;
  readonly at_peak_heap_used_mb: number;
  readonly at_peak_external_mb: number;
  /** Heap after a full GC with the 100 clients still connected and the calls done. */
  readonly heap_used_after_gc_at_peak_mb: number;
  readonly rss_after_close_mb: number;
  readonly heap_used_after_gc_after_close_mb: number;
  readonly heap_total_after_gc_after_close_mb: number;
  readonly external_after_gc_after_close_mb: number;
  readonly rss_after_close_and_gc_mb: number;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { rounds: { type: "string" } }, strict: true });
  const rounds = values.rounds === undefined ? 2 : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new Error(`--rounds must be a positive integer (got ${JSON.stringify(values.rounds)})`);
  const dir = mkdtempSync(join(tmpdir(), "armbridge-bench-memory-"));
  const token = "bench-memory-token-0123456789";
  const serveLog = join(dir, "serve.log");
  const sim = await spawnSimulator({
    link: "tcp",
    seed: 1,
    effectsLog: join(dir, "effects.jsonl"),
    logFile: join(dir, "sim.log"),
  });
  const serve = await spawnServe({
    link: sim.link,
    dataDir: join(dir, "data"),
    token,
    logFile: serveLog,
    logLevel: "warn",
    readyTimeoutMs: 30_000,
    nodeArgs: ["--inspect=127.0.0.1:0"],
  });
  const probe = await InspectorProbe.fromLog(serveLog, 10_000);
  const url = new URL(serve.url);
  // Raw answers (send, not call): the bench measures the bridge, not this side parsing what it answered.
  const client = new ArmbridgeClient({ url: serve.url, token });
  try {
    await sleep(1000);
    const rssBefore = rssMb(serve.pid);
    const heapBefore: MemoryUsage = await probe.heapAfterGc();
    const results: Round[] = [];
    let batchNo = 0;
    for (let round = 1; round <= rounds; round++) {
      const sockets: Socket[] = [];
      // Past the stream cap the bridge answers 503 into a socket that never reads; each still costs it a connection.
      for (let i = 0; i < STREAMS; i++) sockets.push(await openStuckStream(url, token));
      let peak = rssMb(serve.pid);
      // What the peak is made of: the child's own reading (no GC) at the highest RSS seen.
      let peakUsage = await probe.memoryUsage();
      let sent = 0;
      const started = Date.now();
      while (sent < CALLS) {
        const n = Math.min(BATCH, CALLS - sent);
        const calls = Array.from({ length: n }, (_, k) => ({
          id: `mem-${batchNo}-${k}`,
          name: `invented_tool_${round}_${sent + k}`,
          args: {},
        }));
        const res = await client.send("calls", undefined, JSON.stringify({ calls }), JSON_BODY);
        await res.arrayBuffer();
        sent += n;
        batchNo++;
        if (batchNo % 10 === 0) {
          const usage = await probe.memoryUsage();
          if (usage.rss > peakUsage.rss) peakUsage = usage;
          peak = Math.max(peak, rssMb(serve.pid));
        }
      }
      const callsSeconds = (Date.now() - started) / 1000;
      peak = Math.max(peak, rssMb(serve.pid));
      const metrics = await (await client.send("metrics")).text();
      const atPeak = await probe.heapAfterGc();
      for (const s of sockets) s.destroy();
      // Let the bridge notice the closes; RSS is read before the forced GC, as a client would see it.
      await sleep(3000);
      const rssAfter = rssMb(serve.pid);
      const afterClose = await probe.heapAfterGc();
      results.push({
        round,
        calls_seconds: Number(callsSeconds.toFixed(1)),
        metrics_bytes: metrics.length,
        rss_peak_mb: peak,
        at_peak_heap_total_mb: mb(peakUsage.heapTotal),
        at_peak_heap_used_mb: mb(peakUsage.heapUsed),
        at_peak_external_mb: mb(peakUsage.external),
        heap_used_after_gc_at_peak_mb: mb(atPeak.heapUsed),
        rss_after_close_mb: rssAfter,
        heap_used_after_gc_after_close_mb: mb(afterClose.heapUsed),
        heap_total_after_gc_after_close_mb: mb(afterClose.heapTotal),
        external_after_gc_after_close_mb: mb(afterClose.external),
        rss_after_close_and_gc_mb: mb(afterClose.rss),
      });
    }

    const last = results.at(-1)!;
    const rssPeak = Math.max(...results.map((r) => r.rss_peak_mb));
    const heapPeak = Math.max(...results.map((r) => r.heap_used_after_gc_at_peak_mb));
    const growthPeak = Number((rssPeak - rssBefore).toFixed(1));
    const heapBack = Number((last.heap_used_after_gc_after_close_mb - mb(heapBefore.heapUsed)).toFixed(1));
    // The hub's drops (warn lines in the bridge's log): proof the backpressure bound, not luck, kept the streams small.
    const drops = readFileSync(serveLog, "utf8")
      .split("\n")
      .filter((l) => l.includes("dropped an event stream whose client stopped reading")).length;
    const out = process.stdout;
    out.write(
      `bench:memory: ${rounds} round(s) of ${STREAMS} non-reading ${ROUTES.events.method} ${ROUTES.events.path} clients + ${CALLS} invented-tool calls (batches of ${BATCH}), node ${process.version}, ${new Date().toISOString()}\n`,
    );
    for (const r of results) out.write(`${JSON.stringify(r)}\n`);
    out.write(
      `event streams dropped for a backlog past the bound: ${drops} (of ${rounds * STREAMS} connections; the rest were refused 503 over the stream cap)\n`,
    );
    out.write(`                 before   peak   after close\n`);
    out.write(`RSS (MB)         ${pad(rssBefore)} ${pad(rssPeak)} ${pad(last.rss_after_close_mb)}\n`);
    out.write(
      `heap after gc    ${pad(mb(heapBefore.heapUsed))} ${pad(heapPeak)} ${pad(last.heap_used_after_gc_after_close_mb)}   (heapUsed MB; peak = clients still open, after the calls)\n`,
    );
    out.write(
      `external after gc ${pad(mb(heapBefore.external))}        ${pad(last.external_after_gc_after_close_mb)}\n`,
    );
    const growthOk = growthPeak < RSS_GROWTH_LIMIT_MB;
    const backOk = heapBack < HEAP_RETURN_MB;
    out.write(
      `verdict: RSS growth at peak ${growthPeak} MB (< ${RSS_GROWTH_LIMIT_MB} MB): ${growthOk ? "PASS" : "FAIL"}\n`,
    );
    out.write(
      `verdict: heap after gc after close ${last.heap_used_after_gc_after_close_mb} MB vs ${mb(heapBefore.heapUsed)} MB before (${sign(heapBack)} MB, within ${HEAP_RETURN_MB} MB): ${backOk ? "PASS" : "FAIL"}\n`,
    );
    out.write(
      `note: RSS after close is ${sign(Number((last.rss_after_close_mb - rssBefore).toFixed(1)))} MB over before; what the heap after gc does not account for is pages kept by V8 and the allocator, not live objects\n`,
    );
    return growthOk && backOk ? 0 : 1;
  } finally {
    probe.close();
    await serve.stop(3000);
    await sim.stop(3000);
    rmSync(dir, { recursive: true, force: true });
  }
}

function pad(n: number): string {
  return n.toFixed(1).padStart(6);
}

function sign(n: number): string {
  return n >= 0 ? `+${n}` : String(n);
}

process.on("exit", killLiveServeChildren);
main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:memory failed: ${String(error)}\n`);
    killLiveServeChildren();
    process.exitCode = 1;
  },
);
