import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { MAX_CALL_ID_LENGTH } from "../../src/wire/limits.js";
import { callCommand } from "../../src/surfaces/cli/callCommand.js";
import { GeminiToolAdapter, identifyCalls } from "../../src/surfaces/gemini/GeminiToolAdapter.js";
import { startHttpServer, type RunningHttpServer } from "../../src/surfaces/http/startHttpServer.js";
import { createMcpServer, MCP_CALL_ID_META } from "../../src/surfaces/mcp/createMcpServer.js";
import { FakeArm } from "./http/FakeArm.js";

/**
 * A call id longer than the cap, or with a
 * lone surrogate (not encodable as UTF-8), gets a coded `rejected` on every
 * surface, and nothing is recorded or sent. Checked centrally in the
 * executor's admission; each surface is driven here as its clients drive it.
 */
const TOKEN = "test-token-123";
const LONG_ID = "x".repeat(MAX_CALL_ID_LENGTH + 1);
const LONE_SURROGATE_ID = "call-\ud800-1";
const BAD_IDS = [
  ["too long", LONG_ID],
  ["10,000 characters long (under the HTTP body limit, which answers 413 beyond it)", "z".repeat(10_000)],
  ["a lone surrogate", LONE_SURROGATE_ID],
] as const;
const ARGS = { positions: { elbow: 0.4 } };

let bridge: Bridge;
let arm: FakeArm;
let http: RunningHttpServer | undefined;

beforeEach(async () => {
  const config = loadConfig();
  arm = new FakeArm(config);
  bridge = await Bridge.start({ config, transport: { kind: "custom", transport: arm }, dataDir: ":memory:" });
});
afterEach(async () => {
  await http?.close();
  http = undefined;
  await bridge.close();
});

const nothingStored = (): void => {
  expect(bridge.ledger.list()).toHaveLength(0);
  expect(arm.sent).toHaveLength(0);
};

describe.each(BAD_IDS)("a call id that is %s", (_what, badId) => {
  it("executor: rejected with ARMB_ERR_CALL_ID_INVALID, nothing stored; an id at the cap is fine", async () => {
    const [r] = await bridge.executor.execute([{ id: badId, name: "move_joints", args: ARGS }]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_CALL_ID_INVALID" });
    nothingStored();
    const [ok] = await bridge.executor.execute([
      { id: "y".repeat(MAX_CALL_ID_LENGTH), name: "move_joints", args: ARGS },
    ]);
    expect(ok!.result.status).toBe("done");
  });

  it("HTTP POST /v1/calls", async () => {
    http = await startHttpServer(bridge, { port: 0, token: TOKEN });
    const res = await fetch(`${http.url}/v1/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ calls: [{ id: badId, name: "move_joints", args: ARGS }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      responses: { response: { error?: { status: string; error_code: string } } }[];
    };
    expect(body.responses[0]!.response.error).toMatchObject({
      status: "rejected",
      error_code: "ARMB_ERR_CALL_ID_INVALID",
    });
    nothingStored();
  });

  it("CLI call --id", async () => {
    http = await startHttpServer(bridge, { port: 0, token: TOKEN });
    const stdout = new PassThrough();
    const chunks: string[] = [];
    stdout.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
    const code = await callCommand(
      ["move_joints", "--args", JSON.stringify(ARGS), "--id", badId, "--url", http.url, "--token", TOKEN],
      { stdout, stderr: new PassThrough(), env: {} },
    );
    expect(code).toBe(0);
    const line = JSON.parse(chunks.join("")) as { response: { error?: { status: string; error_code: string } } };
    expect(line.response.error).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_CALL_ID_INVALID" });
    nothingStored();
  });

  it('MCP _meta["armbridge/call_id"]', async () => {
    const server = createMcpServer(bridge);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "0" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const r = await client.callTool({ name: "move_joints", arguments: ARGS, _meta: { [MCP_CALL_ID_META]: badId } });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_CALL_ID_INVALID" });
      nothingStored();
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("Gemini adapter", async () => {
    const [response] = await new GeminiToolAdapter(bridge.executor).respond(
      identifyCalls([{ id: badId, name: "move_joints", args: ARGS }]),
      { deadlineMs: 5000 },
    );
    expect(response!.response).toMatchObject({ error: { status: "rejected", error_code: "ARMB_ERR_CALL_ID_INVALID" } });
    nothingStored();
  });
});
