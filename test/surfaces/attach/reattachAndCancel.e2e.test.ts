import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { DEFAULT_CONFIG_PATH } from "../../../src/config/loadConfig.js";
import type { CallResponse } from "../../../src/executor/calls/CallResult.js";
import { silentLogger } from "../../../src/observability/logger.js";
import { connectToServe, type ServeConnection } from "../../../src/surfaces/attach/ServeHttp.js";
import { RemoteExecutor } from "../../../src/surfaces/attach/RemoteExecutor.js";
import { agentClient } from "../../../src/surfaces/gemini/agentClient.js";
import { readEffects } from "../../firmware-sim/readEffects.js";
import { CLI, interrupt, ROOT, SIM, startReady, type ReadyProcess } from "../cli/processes.js";

// The two clients of a running serve that re-attach — RemoteExecutor
// (`agent --bridge`) and McpStdioProxy (`mcp --bridge`) — when serve dies
// and comes back while their call is under way, and when their own caller
// cancels. Real processes (dist/): firmware-sim with its effects log, the
// ground truth of what moved, and `armbridge serve`, killed and started again
// on the same port and ledger. What must hold: a motion runs once; a lost or
// cancelled wait never sends it again nor stops it.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping re-attach and cancel end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "reattach-e2e-token-0123";
const auth = { authorization: `Bearer ${TOKEN}` };

interface Output {
  status: string;
  action_id?: string;
  replayed?: boolean;
}

/** A port free now, to start serve on and start it again on after a kill (clients keep its URL). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(!built)(
  "re-attaching after serve restarts, and cancelling, never moves the arm twice nor stops it (needs dist: npm run build)",
  () => {
    let dir: string;
    let effectsLog: string;
    let configPath: string;
    let sim: ReadyProcess;
    let serve: ReadyProcess | undefined;
    let url: string;
    let port: number;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "armbridge-reattach-"));
      effectsLog = join(dir, "effects.jsonl");
      const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
      raw.arm!.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm!.urdf));
      configPath = join(dir, "arm.yaml");
      writeFileSync(configPath, stringify(raw));
      sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--seed", "11", "--effects-log", effectsLog]);
      port = await freePort();
      url = `http://127.0.0.1:${port}`;
      serve = await startServe();
    }, 60_000);

    afterAll(async () => {
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    function startServe(): Promise<ReadyProcess> {
      return startReady(
        CLI,
        [
          "serve",
          "--serial",
          String(sim.ready.link),
          "--config",
          configPath,
          "--http",
          `127.0.0.1:${port}`,
          "--token",
          TOKEN,
          "--data",
          join(dir, "data"),
        ],
        { XDG_STATE_HOME: join(dir, "xdg") },
      );
    }

    /** serve dies as a crash would (SIGKILL), then starts again on the same port and ledger after `downMs`. */
    async function crashAndRestart(downMs: number): Promise<void> {
      const s = serve!;
      s.child.kill("SIGKILL");
      await s.exited;
      serve = undefined;
      await new Promise((r) => setTimeout(r, downMs));
      serve = await startServe();
    }

    async function get<T>(path: string): Promise<T> {
      const r = await fetch(`${url}${path}`, { headers: auth });
      expect(r.status, `GET ${path}`).toBe(200);
      return (await r.json()) as T;
    }

    async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
      const end = Date.now() + ms;
      for (;;) {
        const v = await probe().catch(() => undefined);
        if (v !== undefined) return v;
        if (Date.now() > end) throw new Error(`never: ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    const inFlight = (callId: string): Promise<{ action_id: string }> =>
      until(`${callId} in flight`, async () =>
        (await get<{ in_flight: { call_id: string; action_id: string }[] }>("/v1/state")).in_flight.find(
          (f) => f.call_id === callId,
        ),
      );

    const inFlightWhere = (match: (callId: string) => boolean): Promise<{ call_id: string; action_id: string }> =>
      until("a call in flight", async () =>
        (await get<{ in_flight: { call_id: string; action_id: string }[] }>("/v1/state")).in_flight.find((f) =>
          match(f.call_id),
        ),
      );

    /** Every motion the simulator started for an action, and how the last one ended. */
    function motions(actionId: string): { starts: number; outcome: string | undefined } {
      const mine = readEffects(effectsLog).filter((e) => e.action_id === actionId);
      return {
        starts: mine.filter((e) => e.event === "motion_start").length,
        outcome: mine.findLast((e) => e.event === "motion_end")?.outcome,
      };
    }

    const startsOn = (joint: string): number =>
      readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.joints.includes(joint)).length;

    /** The action's state in serve's ledger once it is settled (the motion followed to its end by observation). */
    const settledState = (actionId: string): Promise<string> =>
      until(`${actionId} settled`, async () => {
        const row = await get<{ state: string }>(`/v1/actions/${actionId}`);
        return ["done", "failed", "unknown", "stopped"].includes(row.state) ? row.state : undefined;
      });

    /**
     * serve died with the link, so the simulated controller stopped the motion
     * part-way and the restarted serve could not say more than `unknown`: an
     * operator confirms it (as the console would) so the joint takes motions again.
     */
    async function settleByOperator(result: { status: string; action_id?: string | undefined }): Promise<void> {
      if (result.status !== "unknown") return;
      const r = await fetch(`${url}/v1/actions/${result.action_id}/confirm`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ outcome: "partial", operator: "test" }),
      });
      expect(r.status, await r.text()).toBe(200);
    }

    function remoteExecutor(): { executor: RemoteExecutor; http: ServeConnection } {
      const http = connectToServe(url, TOKEN);
      return {
        executor: new RemoteExecutor({
          http: http.client,
          client: agentClient({ model: "reattach-test" }),
          log: silentLogger,
          reattachForMs: 60_000,
        }),
        http,
      };
    }

    async function stdioHost(name: string): Promise<Client> {
      const client = new Client({ name, version: "1.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, "mcp", "--bridge", url, "--token", TOKEN],
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? "", ARMBRIDGE_LOG_LEVEL: "warn" },
          stderr: "ignore",
        }),
      );
      return client;
    }

    it("agent --bridge (RemoteExecutor): serve killed mid-motion and started again; the same call id re-attaches, answered from the ledger, and the motion ran once", async () => {
      const { executor, http } = remoteExecutor();
      try {
        const before = startsOn("wrist_3");
        // About 5 s (1.4 rad or more at 0.15 of 2 rad/s): serve dies and comes back while it runs.
        const answer = executor.execute([
          { id: "re-crash", name: "move_joints", args: { positions: { wrist_3: 1.4 }, speed: 0.15 } },
        ]);
        const flying = await inFlight("re-crash");
        await crashAndRestart(300);
        const [response] = (await answer) as [CallResponse];
        expect(response.id).toBe("re-crash");
        // The restarted serve's record of the motion the first one sent, not a new one.
        expect(response.result).toMatchObject({ action_id: flying.action_id, replayed: true });
        expect(motions(flying.action_id).starts).toBe(1);
        expect(startsOn("wrist_3")).toBe(before + 1);
        await settleByOperator(response.result);
      } finally {
        await http.close();
      }
    }, 120_000);

    it("mcp --bridge (McpStdioProxy): serve killed mid-motion and started again; the relay opens a new session and re-sends the same request, and the motion ran once", async () => {
      const host = await stdioHost("crash-host");
      try {
        const before = startsOn("wrist_3");
        const answer = host.callTool(
          { name: "move_joints", arguments: { positions: { wrist_3: -1.4 }, speed: 0.15 } },
          undefined,
          { timeout: 120_000 },
        );
        const flying = await inFlightWhere((id) => id.startsWith("mcpx:"));
        await crashAndRestart(300);
        const out = (await answer).structuredContent as Output;
        expect(out).toMatchObject({ action_id: flying.action_id, replayed: true });
        expect(motions(flying.action_id).starts).toBe(1);
        expect(startsOn("wrist_3")).toBe(before + 1);
        await settleByOperator(out);
      } finally {
        await host.close();
      }
    }, 120_000);

    it("agent --bridge (RemoteExecutor): the caller's cancel ends its wait only; the motion goes on, is settled by observation, and ran once", async () => {
      const { executor, http } = remoteExecutor();
      try {
        const before = startsOn("wrist_3");
        const cancel = new AbortController();
        const answer = executor.execute(
          [{ id: "re-cancel", name: "move_joints", args: { positions: { wrist_3: 1.4 }, speed: 0.15 } }],
          { signal: cancel.signal },
        );
        const flying = await inFlight("re-cancel");
        cancel.abort();
        const [response] = (await answer) as [CallResponse];
        // Our wait ended before the motion did: it is not done, and not a failure either.
        expect(response.result).toMatchObject({ action_id: flying.action_id });
        expect(["unknown", "done"]).toContain(response.result.status);
        expect(await settledState(flying.action_id)).toBe("done");
        expect(motions(flying.action_id)).toEqual({ starts: 1, outcome: "reached" });
        expect(startsOn("wrist_3")).toBe(before + 1);
        // Asked again by id, it is the recorded outcome: nothing runs.
        const [again] = await executor.execute([
          { id: "re-cancel", name: "move_joints", args: { positions: { wrist_3: 1.4 }, speed: 0.15 } },
        ]);
        expect(again?.result).toMatchObject({ status: "done", action_id: flying.action_id, replayed: true });
        expect(startsOn("wrist_3")).toBe(before + 1);
      } finally {
        await http.close();
      }
    }, 120_000);

    it("mcp --bridge (McpStdioProxy): the host's notifications/cancelled ends its wait only; the motion goes on, is settled, ran once, and the relay takes the next call", async () => {
      const host = await stdioHost("cancel-host");
      try {
        const before = startsOn("wrist_3");
        const cancel = new AbortController();
        const answer = host.callTool(
          { name: "move_joints", arguments: { positions: { wrist_3: -1.4 }, speed: 0.15 } },
          undefined,
          { signal: cancel.signal, timeout: 120_000 },
        );
        const flying = await inFlightWhere((id) => id.startsWith("mcpx:"));
        cancel.abort("the host gave up waiting");
        await expect(answer).rejects.toThrow();
        expect(await settledState(flying.action_id)).toBe("done");
        expect(motions(flying.action_id)).toEqual({ starts: 1, outcome: "reached" });
        expect(startsOn("wrist_3")).toBe(before + 1);
        // The relay is not stuck on the cancelled request: the next call goes through and moves once.
        const next = (
          await host.callTool({ name: "move_joints", arguments: { positions: { wrist_3: -1.2 } } }, undefined, {
            timeout: 60_000,
          })
        ).structuredContent as Output;
        expect(next.status).toBe("done");
        expect(motions(next.action_id!).starts).toBe(1);
        expect(startsOn("wrist_3")).toBe(before + 2);
      } finally {
        await host.close();
      }
    }, 120_000);

    it("mcp --bridge (McpStdioProxy): a call the host cancelled while it queued is never sent, even when serve restarts under the relay afterwards", async () => {
      const { executor, http } = remoteExecutor();
      const host = await stdioHost("cancel-queued-host");
      try {
        const before = startsOn("wrist_3");
        // The agent's motion holds wrist_3 for about 5 s; the host's call on it queues behind.
        const blocker = executor.execute([
          { id: "re-blocker", name: "move_joints", args: { positions: { wrist_3: 1.4 }, speed: 0.15 } },
        ]);
        await inFlight("re-blocker");
        const cancel = new AbortController();
        const queued = host.callTool(
          { name: "move_joints", arguments: { positions: { wrist_3: 0.5 }, speed: 1 } },
          undefined,
          { signal: cancel.signal, timeout: 120_000 },
        );
        // Time for it to reach serve and queue on the lock (the blocker runs for seconds yet).
        await new Promise((r) => setTimeout(r, 1000));
        expect((await get<{ in_flight: { call_id: string }[] }>("/v1/state")).in_flight.map((f) => f.call_id)).toEqual([
          "re-blocker",
        ]);
        cancel.abort("the host gave up waiting");
        await expect(queued).rejects.toThrow();
        const [done] = await blocker;
        expect(done?.result.status).toBe("done");
        // serve goes away and comes back while the relay still holds the cancelled request.
        await crashAndRestart(300);
        await new Promise((r) => setTimeout(r, 6000));
        expect(startsOn("wrist_3")).toBe(before + 1);
        const rows = await get<{ actions: unknown[] }>(
          `/v1/actions?client_name=${encodeURIComponent("cancel-queued-host 1.0")}`,
        );
        expect(rows.actions).toEqual([]);
      } finally {
        await host.close();
        await http.close();
      }
    }, 120_000);
  },
);
