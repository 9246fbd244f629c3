import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../../firmware-sim/startSimulator.js";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";

/**
 * /mcp speaks both protocol eras to the official SDK's v2 client: a
 * 2026-07-28 client (stateless: its version and client info in every
 * request's `_meta`) and a 2025-11-25 one (initialize, a session) each drive
 * one motion, recorded under the client's own name. A 2026-07-28 tools/call
 * whose response stream breaks mid-motion is re-issued under a new JSON-RPC
 * id with the same tool call id and is answered from the ledger: one motion.
 * Judged by the simulator's effects log.
 */
const TOKEN = "mcp-stateless-token-123";
const MODERN = "2026-07-28";

interface Effect {
  readonly event: string;
  readonly joints: readonly string[];
  readonly to?: Readonly<Record<string, number>>;
}
interface ToolResult {
  readonly status: string;
  readonly action_id?: string;
  readonly replayed?: boolean;
}

let dir: string;
let sim: RunningSimulator;
let bridge: Bridge;
let server: RunningHttpServer;
const clients: Client[] = [];

const effects = (): Effect[] =>
  readFileSync(join(dir, "effects.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Effect);
const startsOf = (joint: string): Effect[] =>
  effects().filter((e) => e.event === "motion_start" && e.joints.includes(joint));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "armb-mcp-2026-"));
  const config = loadConfig();
  sim = await startSimulator({
    link: "tcp",
    port: 0,
    effectsLog: join(dir, "effects.jsonl"),
    logger: pino({ level: "silent" }),
    armConfig: config,
  });
  bridge = await Bridge.start({ config, transport: { kind: "serial", link: sim.link }, dataDir: join(dir, "data") });
  server = await startHttpServer(bridge, { port: 0, token: TOKEN });
});

afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await server?.close();
  await bridge?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function connect(name: string, era: "modern" | "legacy"): Promise<Client> {
  const client = new Client(
    { name, version: "2" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A raw 2026-07-28 tools/call: the envelope in `_meta`, no session. */
function modernCall(
  id: number,
  args: Record<string, unknown>,
  callId: string,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "move_joints",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "move_joints",
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
          "armbridge/call_id": callId,
        },
      },
    }),
    ...(signal ? { signal } : {}),
  });
}

/** The structuredContent of the response to request `id` (SSE or JSON). */
function resultIn(text: string, id: number): ToolResult {
  const messages = text
    .split("\n")
    .filter((l) => l.startsWith("data: ") || l.startsWith("{"))
    .map(
      (l) =>
        JSON.parse(l.startsWith("data: ") ? l.slice(6) : l) as {
          id?: unknown;
          result?: { structuredContent?: ToolResult };
        },
    );
  const answer = messages.find((m) => m.id === id && m.result !== undefined);
  if (!answer?.result?.structuredContent) throw new Error(`no result for request ${id}: ${text}`);
  return answer.result.structuredContent;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}`);
}

describe("MCP at /mcp, both protocol eras (official SDK v2 client)", () => {
  it("a 2026-07-28 client drives one motion, recorded under the client info its request carried", async () => {
    const client = await connect("modern-host", "modern");
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("move_joints");
    const before = startsOf("elbow").length;
    const r = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: 0.41 } } });
    const result = r.structuredContent as ToolResult;
    expect(result.status).toBe("done");
    expect(startsOf("elbow")).toHaveLength(before + 1);
    const row = bridge.ledger.get(result.action_id ?? "");
    expect(row?.client).toMatchObject({ kind: "mcp", name: "modern-host 2" });
    // Stateless: no session, so the call id is not session-scoped.
    expect(row?.callId).not.toMatch(/^mcp:/);
  });

  it("a 2025-11-25 client drives one motion in its session", async () => {
    const client = await connect("legacy-host", "legacy");
    const before = startsOf("elbow").length;
    const r = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: -0.2 } } });
    const result = r.structuredContent as ToolResult;
    expect(result.status).toBe("done");
    expect(startsOf("elbow")).toHaveLength(before + 1);
    const row = bridge.ledger.get(result.action_id ?? "");
    expect(row?.client).toMatchObject({ kind: "mcp", name: "legacy-host 2" });
    expect(row?.callId).toMatch(new RegExp(`^mcp:${row?.client?.session}:`));
  });

  it("a tools/call whose stream broke mid-motion, re-issued under a new JSON-RPC id with the same call id, moves once", async () => {
    const callId = `reissue-${Date.now()}`;
    const before = startsOf("shoulder_pan").length;
    const dropped = new AbortController();
    const first = modernCall(1, { positions: { shoulder_pan: 1.2 }, speed: 0.2 }, callId, dropped.signal);
    const response = await first;
    expect(response.status).toBe(200);
    // The client goes away once the motion has started: on Streamable HTTP that cancels
    // request 1 — our wait for it, not the motion.
    await until(() => startsOf("shoulder_pan").length === before + 1, "the motion started");
    dropped.abort();
    await response.text().catch(() => undefined);

    const again = await modernCall(2, { positions: { shoulder_pan: 1.2 }, speed: 0.2 }, callId);
    const result = resultIn(await again.text(), 2);
    expect(result.status).toBe("done");
    expect(startsOf("shoulder_pan")).toHaveLength(before + 1);
    const ends = effects().filter((e) => e.event === "motion_end" && e.joints.includes("shoulder_pan"));
    expect(ends.at(-1)?.to?.shoulder_pan).toBeCloseTo(1.2, 2);
    // Once more, after it settled: the ledger's answer, nothing sent.
    const third = resultIn(
      await (await modernCall(3, { positions: { shoulder_pan: 1.2 }, speed: 0.2 }, callId)).text(),
      3,
    );
    expect(third).toMatchObject({ status: "done", replayed: true });
    expect(startsOf("shoulder_pan")).toHaveLength(before + 1);
  });
});
