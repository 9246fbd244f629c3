import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEffects } from "../../firmware-sim/readEffects.js";
import { CLI, interrupt, ROOT, SIM, startReady, type ReadyProcess } from "../cli/processes.js";

/**
 * A 2026-07-28 host over stdio (the official SDK's v2 client, pinned to that
 * revision: no initialize, its version and client info in every request's
 * `_meta`): through `mcp --bridge` to serve's /mcp, and to the embedded
 * `mcp`. Each drives one motion, judged by the simulator's effects log.
 */
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping 2026-07-28 over stdio: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);
const TOKEN = "mcp-modern-stdio-token-0123";

interface Output {
  readonly status: string;
  readonly action_id?: string;
}

describe.skipIf(!built)("MCP 2026-07-28 over stdio: mcp --bridge and the embedded mcp (needs dist)", () => {
  let dir: string;
  let effectsLog: string;
  let sim: ReadyProcess;
  let serve: ReadyProcess;
  const clients: Client[] = [];
  const starts = (joint: string): number =>
    readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.joints.includes(joint)).length;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armb-mcp-modern-stdio-"));
    effectsLog = join(dir, "effects.jsonl");
    sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--effects-log", effectsLog]);
    serve = await startReady(
      CLI,
      ["serve", "--serial", String(sim.ready.link), "--http", "127.0.0.1:0", "--token", TOKEN],
      { XDG_STATE_HOME: join(dir, "xdg") },
    );
  }, 60_000);

  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function connect(name: string, args: readonly string[], env: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name, version: "7" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "mcp", ...args],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", ARMBRIDGE_LOG_LEVEL: "warn", ...env },
        stderr: "ignore",
      }),
    );
    clients.push(client);
    return client;
  }

  it("through mcp --bridge: one motion, recorded on serve under the host's name", async () => {
    const client = await connect("modern-relayed", ["--bridge", String(serve.ready.http), "--token", TOKEN]);
    const before = starts("wrist_2");
    const r = await client.callTool({ name: "move_joints", arguments: { positions: { wrist_2: 0.35 } } });
    const out = r.structuredContent as Output;
    expect(out.status).toBe("done");
    expect(starts("wrist_2")).toBe(before + 1);
    const res = await fetch(`${String(serve.ready.http)}/v1/actions/${out.action_id ?? ""}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const row = (await res.json()) as { client: { kind: string; name: string } | null };
    expect(row.client).toMatchObject({ kind: "mcp", name: "modern-relayed 7" });
  }, 60_000);

  it("the embedded mcp: one motion on its own arm", async () => {
    // serve holds the simulator's one connection, so the embedded bridge gets its own simulator.
    const ownLog = join(dir, "embedded-effects.jsonl");
    const own = await startReady(SIM, ["--link", "tcp", "--port", "0", "--effects-log", ownLog]);
    try {
      const client = await connect("modern-embedded", ["--serial", String(own.ready.link), "--data", join(dir, "emb")]);
      const r = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: 0.3 } } });
      expect((r.structuredContent as Output).status).toBe("done");
      expect(readEffects(ownLog).filter((e) => e.event === "motion_start" && e.joints.includes("elbow"))).toHaveLength(
        1,
      );
    } finally {
      await clients
        .pop()
        ?.close()
        .catch(() => undefined);
      await interrupt(own);
    }
  }, 60_000);
});
