import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "../http/FakeArm.js";

/**
 * MCP over Streamable HTTP at /mcp on the bridge's own port: the official
 * SDK client against it, the same token and Host allow-list as the API,
 * one session per client, each call recorded under the client's own name.
 */
const TOKEN = "mcp-http-token-123";

let bridge: Bridge;
let arm: FakeArm;
let server: RunningHttpServer;
const clients: Client[] = [];

beforeEach(async () => {
  const config = loadConfig();
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
  server = await startHttpServer(bridge, { port: 0, token: TOKEN, mcp: { maxSessions: 3 } });
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await server.close();
  await bridge.close();
});

async function connect(name: string, token = TOKEN): Promise<Client> {
  const client = new Client({ name, version: "1.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function rawPost(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe("MCP over Streamable HTTP at /mcp", () => {
  it("serves the same tools as stdio, and records each call under the client's initialize name and its session", async () => {
    const client = await connect("inspector-test");
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("move_joints");
    const r = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: 0.7 } } });
    expect(r.structuredContent).toMatchObject({ status: "done" });
    const actionId = (r.structuredContent as { action_id: string }).action_id;
    const row = bridge.ledger.get(actionId);
    expect(row?.client).toMatchObject({ kind: "mcp", name: "inspector-test 1.0" });
    expect(row?.client?.session).toMatch(/^[0-9a-f-]{36}$/);
    // The default call id is scoped to the session and the JSON-RPC request: a re-sent request replays.
    expect(row?.callId).toMatch(new RegExp(`^mcp:${row?.client?.session}:\\d+$`));
    expect(arm.sent).toHaveLength(1);
  });

  it("two clients get two sessions, both named in the ledger; the history filters by each", async () => {
    const a = await connect("host-a");
    const b = await connect("host-b");
    await Promise.all([
      a.callTool({ name: "move_joints", arguments: { positions: { elbow: 0.2 } } }),
      b.callTool({ name: "move_joints", arguments: { positions: { wrist_1: 0.2 } } }),
    ]);
    const names = bridge.ledger
      .clients()
      .map((c) => c.client.name)
      .sort();
    expect(names).toEqual(["host-a 1.0", "host-b 1.0"]);
    expect(bridge.ledger.list({ client: { name: "host-a 1.0" } })).toHaveLength(1);
  });

  it("a JSON-RPC request re-sent in the same session (a lost answer) is answered from the ledger: one motion", async () => {
    const init = await rawPost({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    const session = init.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    await init.text();
    const h = { "mcp-session-id": session ?? "", "mcp-protocol-version": "2025-06-18" };
    await (await rawPost({ jsonrpc: "2.0", method: "notifications/initialized" }, h)).text();
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "move_joints", arguments: { positions: { elbow: 0.3 } } },
    };
    const first = await (await rawPost(call, h)).text();
    const again = await (await rawPost(call, h)).text();
    expect(first).toContain('\\"status\\":\\"done\\"');
    expect(again).toContain('\\"replayed\\":true');
    expect(arm.sent).toHaveLength(1);
  });

  it("needs the bearer token and a Host it answers to, like every route", async () => {
    await expect(connect("intruder", "wrong-token")).rejects.toThrow();
    const wrong = await rawPost(
      { jsonrpc: "2.0", id: 0, method: "initialize", params: {} },
      { authorization: "Bearer nope" },
    );
    expect(wrong.status).toBe(401);
    // fetch will not send another Host; a DNS-rebinding page's browser would.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${server.url}/mcp`,
        {
          method: "POST",
          headers: { host: "evil.example", authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }));
    });
    expect(rebound).toBe(421);
    expect(arm.sent).toHaveLength(0);
  });

  it("an Origin other than the server's own is refused 403 and opens no session; its own origin and none are served", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "page", version: "0" } },
    };
    for (const origin of ["http://evil.example", "http://localhost:5173", "null", `${server.url}.evil.example`]) {
      const refused = await rawPost(init, { origin });
      expect(refused.status, origin).toBe(403);
      expect(refused.headers.get("mcp-session-id"), origin).toBeNull();
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        "ARMB_ERR_HTTP_ORIGIN_NOT_ALLOWED",
      );
    }
    const own = await rawPost(init, { origin: server.url });
    expect(own.status).toBe(200);
    expect(own.headers.get("mcp-session-id")).toBeTruthy();
    await own.text();
    const none = await rawPost(init);
    expect(none.status).toBe(200);
    await none.text();
  });

  it("a 401 carries the Bearer challenge (WWW-Authenticate), with and without a token sent", async () => {
    const wrong = await rawPost(
      { jsonrpc: "2.0", id: 0, method: "initialize", params: {} },
      { authorization: "Bearer nope" },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer realm="armbridge", error="invalid_token"$/);
    const missing = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
  });

  it("an unknown tool is the JSON-RPC error -32602, not a tool result; nothing is sent", async () => {
    const client = await connect("typo-host");
    await expect(
      client.callTool({ name: "move_jionts", arguments: { positions: { elbow: 0.1 } } }),
    ).rejects.toMatchObject({ code: -32602 });
    const known = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: 9 } } });
    // Bad arguments to a tool that exists stay a tool result the model can correct.
    expect(known).toMatchObject({ isError: true, structuredContent: { status: "rejected" } });
    expect(arm.sent).toHaveLength(0);
  });

  it("a request without a session that is not initialize is refused; an unknown session is 404", async () => {
    expect((await rawPost({ jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(400);
    expect(
      (await rawPost({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "no-such-session" })).status,
    ).toBe(404);
  });

  it("at the session cap the least recently used idle session makes room; its client learns its session ended", async () => {
    const first = await connect("c1");
    await connect("c2");
    await connect("c3");
    const fourth = await connect("c4");
    expect((await fourth.listTools()).tools.length).toBeGreaterThan(0);
    await expect(first.listTools()).rejects.toThrow();
  });
});
