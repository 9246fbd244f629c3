import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Bridge } from "../../../src/bridge/Bridge.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { actionsCommand } from "../../../src/surfaces/cli/actionsCommand.js";
import { startHttpServer, type RunningHttpServer } from "../../../src/surfaces/http/startHttpServer.js";
import { FakeArm } from "./FakeArm.js";

const TOKEN = "paging-token";
const ROWS = 234;

let bridge: Bridge;
let server: RunningHttpServer;

/** 234 rows on 9 distinct milliseconds: most page boundaries fall inside a millisecond. */
function seedRows(): Set<string> {
  const ids = new Set<string>();
  const base = 1_800_000_000_000;
  for (let i = 0; i < ROWS; i++) {
    const actionId = `act_${String(i).padStart(4, "0")}_${(i * 7919) % 1000}`;
    bridge.ledger.recordIntent(
      {
        actionId,
        callId: `call-${i}`,
        tool: "move_joints",
        args: { positions: { elbow: 0.1 } },
        argsHash: `h${i}`,
        resources: ["joint:elbow"],
        command: { actionId, targets: { elbow: 0.1 }, speed: 0.5 },
      },
      base + Math.floor(i / 27),
    );
    ids.add(actionId);
  }
  return ids;
}

async function getJson(path: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeEach(async () => {
  const config = loadConfig();
  bridge = await Bridge.start({
    config,
    transport: { kind: "custom", transport: new FakeArm(config) },
    dataDir: ":memory:",
  });
  server = await startHttpServer(bridge, { port: 0, token: TOKEN });
});

afterEach(async () => {
  await server.close();
  await bridge.close();
});

describe("GET /v1/actions paging (rows sharing a millisecond)", () => {
  it("next_cursor pages through all 234 rows, none lost, none twice, newest first", async () => {
    const ids = seedRows();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const { status, json } = await getJson(`/v1/actions?limit=10${q}`);
      expect(status).toBe(200);
      const actions = json.actions as { action_id: string; created_at: number }[];
      seen.push(...actions.map((a) => a.action_id));
      cursor = json.next_cursor as string | null;
      pages++;
      expect(pages).toBeLessThan(100);
    } while (cursor !== null);
    expect(seen).toHaveLength(ROWS);
    expect(new Set(seen)).toEqual(ids);
  });

  it("refuses a cursor it did not issue with ARMB_ERR_CURSOR_INVALID", async () => {
    for (const bad of ["nonsense", Buffer.from('["x","y"]').toString("base64url")]) {
      const { status, json } = await getJson(`/v1/actions?cursor=${bad}`);
      expect(status).toBe(400);
      expect((json.error as { code: string }).code).toBe("ARMB_ERR_CURSOR_INVALID");
    }
  });

  it("`armbridge actions --all --limit 10` prints every row once", async () => {
    const ids = seedRows();
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on("data", (c: Buffer) => chunks.push(c));
    const code = await actionsCommand(["--all", "--limit", "10"], {
      stdout,
      stderr: new PassThrough(),
      env: { ARMBRIDGE_URL: server.url, ARMBRIDGE_TOKEN: TOKEN },
    });
    expect(code).toBe(0);
    const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { actions: { action_id: string }[] };
    const seen = answer.actions.map((a) => a.action_id);
    expect(seen).toHaveLength(ROWS);
    expect(new Set(seen)).toEqual(ids);
  });

  it("`armbridge actions --cursor` continues where the previous page ended", async () => {
    seedRows();
    const first = await getJson("/v1/actions?limit=30");
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on("data", (c: Buffer) => chunks.push(c));
    await actionsCommand(["--limit", "30", "--cursor", String(first.json.next_cursor)], {
      stdout,
      stderr: new PassThrough(),
      env: { ARMBRIDGE_URL: server.url, ARMBRIDGE_TOKEN: TOKEN },
    });
    const second = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { actions: { action_id: string }[] };
    const firstIds = (first.json.actions as { action_id: string }[]).map((a) => a.action_id);
    const all = bridge.ledger.list({ limit: 60 }).map((r) => r.actionId);
    expect([...firstIds, ...second.actions.map((a) => a.action_id)]).toEqual(all);
  });
});
