import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../../firmware-sim/startSimulator.js";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";

/**
 * Call ids an MCP session's requests get over Streamable HTTP: JSON-RPC
 * holds the number 7 and the string "7" to be two requests, so they are two
 * calls; and a session's ids are its own — no other session (through
 * `_meta["armbridge/call_id"]`) and no other surface can take one first.
 * Judged by the simulator's effects log: what physically moved.
 */
const TOKEN = "mcp-call-ids-token-123";

interface Effect {
  readonly event: string;
  readonly joints: readonly string[];
  readonly to: Readonly<Record<string, number>>;
}
interface ToolResult {
  readonly status: string;
  readonly replayed?: boolean;
  readonly error_code?: string;
}

let dir: string;
let sim: RunningSimulator;
let bridge: Bridge;
let server: RunningHttpServer;

const effects = (): Effect[] =>
  readFileSync(join(dir, "effects.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Effect);
const wrist3Starts = (): Effect[] =>
  effects().filter((e) => e.event === "motion_start" && e.joints.includes("wrist_3"));
const wrist3RestsAt = (): number | undefined =>
  effects()
    .filter((e) => e.event === "motion_end" && e.joints.includes("wrist_3"))
    .at(-1)?.to.wrist_3;

async function post(body: unknown, session?: string): Promise<string> {
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session === undefined ? {} : { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
    },
    body: JSON.stringify(body),
  });
  if (session === undefined) return res.headers.get("mcp-session-id") ?? "";
  return res.text();
}

async function openSession(name: string): Promise<string> {
  const session = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } },
  });
  expect(session).not.toBe("");
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
  return session;
}

/** One tools/call with this JSON-RPC id; the structuredContent of its response (SSE or JSON). */
async function callTool(
  session: string,
  id: string | number,
  wrist3: number,
  meta?: Record<string, unknown>,
): Promise<ToolResult> {
  const params = {
    name: "move_joints",
    arguments: { positions: { wrist_3: wrist3 } },
    ...(meta ? { _meta: meta } : {}),
  };
  const text = await post({ jsonrpc: "2.0", id, method: "tools/call", params }, session);
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
  if (!answer?.result?.structuredContent) throw new Error(`no result for request ${JSON.stringify(id)}: ${text}`);
  return answer.result.structuredContent;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "armb-mcp-ids-"));
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
  await server?.close();
  await bridge?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("MCP call ids over Streamable HTTP", () => {
  it('the JSON-RPC ids 7 and "7" are two calls: "7" moves the wrist back to 0.61; a re-sent 7 replays and moves nothing', async () => {
    const session = await openSession("typed-ids");
    const before = wrist3Starts().length;
    expect(await callTool(session, 7, 0.61)).toMatchObject({ status: "done" });
    expect(await callTool(session, 8, -0.61)).toMatchObject({ status: "done" });
    expect(wrist3RestsAt()).toBeCloseTo(-0.61, 2);

    const stringSeven = await callTool(session, "7", 0.61);
    expect(stringSeven.status).toBe("done");
    expect(stringSeven.replayed).toBeUndefined();
    expect(wrist3Starts()).toHaveLength(before + 3);
    expect(wrist3RestsAt()).toBeCloseTo(0.61, 2);

    // The number 7 again is the same request re-sent: its recorded result, no motion.
    expect(await callTool(session, 7, 0.61)).toMatchObject({ status: "done", replayed: true });
    expect(wrist3Starts()).toHaveLength(before + 3);
  });

  it("another session cannot claim a session's future call id through _meta; the session's own request then moves", async () => {
    const owner = await openSession("owner");
    const other = await openSession("squatter");
    const before = wrist3Starts().length;

    const claimed = await callTool(other, 1, 0.2, { "armbridge/call_id": `mcp:${owner}:3` });
    expect(claimed).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_CALL_ID_INVALID" });
    const viaHttp = await fetch(`${server.url}/v1/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        calls: [{ id: `mcp:${owner}:4`, name: "move_joints", args: { positions: { wrist_3: 0.2 } } }],
      }),
    });
    const answered = (await viaHttp.json()) as { responses: { response: { error?: ToolResult } }[] };
    expect(answered.responses[0]?.response.error).toMatchObject({
      status: "rejected",
      error_code: "ARMB_ERR_CALL_ID_INVALID",
    });
    expect(wrist3Starts()).toHaveLength(before);

    const own = await callTool(owner, 3, -0.3);
    expect(own.status).toBe("done");
    expect(own.replayed).toBeUndefined();
    expect(await callTool(owner, 4, 0.3)).toMatchObject({ status: "done" });
    expect(wrist3Starts()).toHaveLength(before + 2);
    expect(wrist3RestsAt()).toBeCloseTo(0.3, 2);
  });
});
