/**
 * npm run bench:attach — what attaching to serve costs per call: the same
 * move_joints calls made in process (the executor of the bridge), by an agent
 * attached over HTTP (`agent --bridge`: RemoteBridge, POST /v1/calls plus the
 * event stream) and by MCP clients over Streamable HTTP (`/mcp`): the
 * official SDK client, and the HTTP leg of `armbridge mcp --bridge`
 * (McpStdioProxy, the JSON-RPC posted as it comes, over undici's request like
 * the agent), which shows what serve's MCP costs apart from the SDK client's
 * own share. One call at a time, on firmware-sim as its own process over TCP
 * with every motion taking 1 ms (--motion-time fixed:1). Each mode runs in
 * interleaved blocks so drift on a shared machine falls on all alike.
 *
 * Target (issue: one bridge owns the arm): p50 added by attaching ≤ 2 ms.
 * Prints figures; asserts nothing (machines are noisy: compare within a run).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { pino } from "pino";
import { Bridge } from "../src/bridge/Bridge.js";
import { loadConfig } from "../src/config/loadConfig.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { connectToServe, type ServeConnection } from "../src/surfaces/attach/ServeHttp.js";
import { McpStdioProxy } from "../src/surfaces/attach/McpStdioProxy.js";
import { RemoteBridge } from "../src/surfaces/attach/RemoteBridge.js";
import { agentClient } from "../src/surfaces/gemini/agentClient.js";
import { startHttpServer } from "../src/surfaces/http/startHttpServer.js";
import { spawnSimulator } from "../firmware-sim/spawnSimulator.js";
import { ROUTES } from "../src/wire/routes.js";

const CALLS = Number(process.env.BENCH_ATTACH_CALLS ?? 300);
const BLOCK = 25;
const WARMUP = 30;
const TOKEN = "bench-attach-token";

type Mode = "in_process" | "agent_http" | "mcp_http" | "mcp_relay";

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** The floor under any HTTP attach on this machine now: p50 of an empty JSON round trip to a bare node:http server. */
async function emptyRoundTripP50(): Promise<number> {
  const server = createServer((_req, res) => res.setHeader("content-type", "application/json").end("{}"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const samples: number[] = [];
  try {
    for (let i = 0; i < 250; i++) {
      const t0 = process.hrtime.bigint();
      await (await fetch(`http://127.0.0.1:${port}/`)).json();
      if (i >= 50) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return quantile(
    samples.sort((a, b) => a - b),
    0.5,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-bench-attach-"));
  const logger = pino({ level: "silent" });
  const sim = await spawnSimulator({
    link: "tcp",
    seed: 1,
    effectsLog: join(dir, "effects.jsonl"),
    logFile: join(dir, "sim.log"),
    flags: ["--motion-time", "fixed:1"],
  });
  let bridge: Bridge | undefined;
  let remote: RemoteBridge | undefined;
  let mcp: Client | undefined;
  let relayHttp: ServeConnection | undefined;
  let relay: McpStdioProxy | undefined;
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  try {
    bridge = await Bridge.start({
      config: loadConfig(),
      transport: { kind: "serial", link: sim.link },
      dataDir: join(dir, "data"),
      logger,
    });
    server = await startHttpServer(bridge, { port: 0, token: TOKEN, logger });
    remote = await RemoteBridge.connect({
      url: server.url,
      token: TOKEN,
      client: agentClient({ model: "bench" }),
      logger,
    });
    mcp = new Client({ name: "bench-attach", version: "1.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(server.url + ROUTES.mcpPost.path), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    // The relay as `mcp --bridge` runs it, its host's messages handed in and its answers taken by JSON-RPC id.
    const answers = new Map<number, (m: JSONRPCMessage) => void>();
    relayHttp = connectToServe(server.url, TOKEN);
    relay = new McpStdioProxy({
      http: relayHttp.client,
      log: logger,
      toHost: async (m) => {
        if ("id" in m && typeof m.id === "number") answers.get(m.id)?.(m);
      },
    });
    const viaRelay = relay;
    let rpcId = 0;
    const ask = (method: string, params: Record<string, unknown>): Promise<JSONRPCMessage> => {
      const id = ++rpcId;
      const answered = new Promise<JSONRPCMessage>((resolve) => answers.set(id, resolve));
      void viaRelay.fromHost({ jsonrpc: "2.0", id, method, params });
      return answered.finally(() => answers.delete(id));
    };
    await ask("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench-relay", version: "1.0" },
    });
    await viaRelay.fromHost({ jsonrpc: "2.0", method: "notifications/initialized" });

    const local = bridge;
    const agent = remote;
    const host = mcp;
    let n = 0;
    // Each call really moves: wrist_3 goes back and forth between two targets.
    const args = (): { positions: { wrist_3: number }; speed: number } => ({
      positions: { wrist_3: n++ % 2 === 0 ? 0.2 : 0.1 },
      speed: 1,
    });
    const run: Record<Mode, () => Promise<string>> = {
      in_process: async () =>
        (await local.executor.execute([{ id: `in-${n}`, name: "move_joints", args: args() }]))[0]!.result.status,
      agent_http: async () =>
        (await agent.execute([{ id: `ag-${n}`, name: "move_joints", args: args() }]))[0]!.result.status,
      mcp_http: async () =>
        ((await host.callTool({ name: "move_joints", arguments: args() })).structuredContent as { status: string })
          .status,
      mcp_relay: async () => {
        const answer = (await ask("tools/call", { name: "move_joints", arguments: args() })) as {
          result?: { structuredContent?: { status?: string } };
        };
        return answer.result?.structuredContent?.status ?? "no answer";
      },
    };
    const modes = Object.keys(run) as Mode[];
    const samples: Record<Mode, number[]> = { in_process: [], agent_http: [], mcp_http: [], mcp_relay: [] };
    const notDone: Record<Mode, number> = { in_process: 0, agent_http: 0, mcp_http: 0, mcp_relay: 0 };
    for (const mode of modes) for (let i = 0; i < WARMUP; i++) await run[mode]();
    for (let done = 0; done < CALLS; done += BLOCK) {
      for (const mode of modes) {
        for (let i = 0; i < BLOCK && done + i < CALLS; i++) {
          const t0 = process.hrtime.bigint();
          const status = await run[mode]();
          samples[mode].push(Number(process.hrtime.bigint() - t0) / 1e6);
          if (status !== "done") notDone[mode]++;
        }
      }
    }

    const base = [...samples.in_process].sort((a, b) => a - b);
    const baseP50 = quantile(base, 0.5);
    const baseP99 = quantile(base, 0.99);
    console.log(
      `bench:attach — ${CALLS} move_joints calls per mode, one at a time, firmware-sim over TCP with 1 ms motions (node ${process.version})`,
    );
    console.log("mode         p50 ms   p99 ms   added p50   added p99   not done");
    for (const mode of modes) {
      const s = [...samples[mode]].sort((a, b) => a - b);
      const p50 = quantile(s, 0.5);
      const p99 = quantile(s, 0.99);
      const added =
        mode === "in_process"
          ? "       -           -"
          : `${(p50 - baseP50).toFixed(2).padStart(10)}  ${(p99 - baseP99).toFixed(2).padStart(10)}`;
      console.log(
        `${mode.padEnd(11)} ${p50.toFixed(2).padStart(7)}  ${p99.toFixed(2).padStart(7)}  ${added}   ${notDone[mode]}`,
      );
    }
    const worst =
      Math.max(
        quantile(
          [...samples.agent_http].sort((a, b) => a - b),
          0.5,
        ),
        quantile(
          [...samples.mcp_http].sort((a, b) => a - b),
          0.5,
        ),
      ) - baseP50;
    console.log(
      `floor: an empty HTTP round trip (bare node:http, fetch) p50 ${(await emptyRoundTripP50()).toFixed(2)} ms; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
    );
    console.log(
      `target: p50 added ≤ 2 ms — ${worst <= 2 ? "met" : "NOT met"} (worst added p50 ${worst.toFixed(2)} ms)`,
    );
  } finally {
    await mcp?.close().catch(() => undefined);
    await relay?.close().catch(() => undefined);
    await relayHttp?.close().catch(() => undefined);
    await remote?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await bridge?.close().catch(() => undefined);
    await sim.stop(3000);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
