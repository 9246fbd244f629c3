import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { DEFAULT_CONFIG_PATH } from "../../../src/config/loadConfig.js";
import { readEffects, type EffectLine } from "../../firmware-sim/readEffects.js";
import { CLI, interrupt, ROOT, runCli, SIM, startReady, type ReadyProcess } from "../cli/processes.js";

// Real processes (dist/): firmware-sim with its effects log — the ground truth of
// what moved — one `armbridge serve` that owns the arm, and models attached to
// it: `armbridge agent --bridge` with a scripted model, and the official MCP SDK
// client over Streamable HTTP at /mcp.
const built = existsSync(CLI) && existsSync(SIM);
if (!built)
  console.warn(`skipping attached clients end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "attach-e2e-token-0123";
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const OPERATOR_TOKEN = "attach-e2e-operator-token-0123";

interface Output {
  status: string;
  action_id?: string;
  message: string;
}
interface InFlight {
  call_id: string;
  action_id: string;
  client: { kind: string; name: string; session?: string } | null;
}

interface AgentRun {
  readonly child: ReturnType<typeof spawn>;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

describe.skipIf(!built)(
  "one serve owns the arm; an agent --bridge and an MCP client attach to it (needs dist: npm run build)",
  () => {
    let dir: string;
    let effectsLog: string;
    let sim: ReadyProcess;
    let serve: ReadyProcess;
    let url: string;
    const mcpClients: Client[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "armbridge-attach-e2e-"));
      effectsLog = join(dir, "effects.jsonl");
      const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
      raw.arm!.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm!.urdf));
      const configPath = join(dir, "arm.yaml");
      writeFileSync(configPath, stringify({ ...raw, approval: { set_gripper: "always" }, approval_timeout_s: 60 }));
      sim = await startReady(SIM, ["--link", "tcp", "--port", "0", "--seed", "7", "--effects-log", effectsLog]);
      serve = await startReady(
        CLI,
        [
          "serve",
          "--serial",
          String(sim.ready.link),
          "--config",
          configPath,
          "--http",
          "127.0.0.1:0",
          "--token",
          TOKEN,
          "--operator-token",
          OPERATOR_TOKEN,
          "--data",
          join(dir, "data"),
        ],
        { XDG_STATE_HOME: join(dir, "xdg") },
      );
      url = String(serve.ready.http);
    }, 60_000);

    afterAll(async () => {
      for (const c of mcpClients.splice(0)) await c.close().catch(() => undefined);
      if (serve) await interrupt(serve);
      if (sim) await interrupt(sim);
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** A scripted model: one turn of calls, then an answer. */
    function script(name: string, calls: readonly { id: string; name: string; args: unknown }[]): string {
      const path = join(dir, `${name}.jsonl`);
      writeFileSync(path, `${JSON.stringify({ calls })}\n${JSON.stringify({ text: "finished" })}\n`);
      return path;
    }

    function agent(scriptPath: string, transcript: string): AgentRun {
      const child = spawn(
        process.execPath,
        [
          CLI,
          "agent",
          "move as scripted",
          "--bridge",
          url,
          "--token",
          TOKEN,
          "--model",
          `replay:${scriptPath}`,
          "--transcript",
          transcript,
          "--deadline-ms",
          "120000",
        ],
        {
          cwd: ROOT,
          env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "warn", ARMBRIDGE_TOKEN: "", ARMBRIDGE_URL: "" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
        (resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
      );
      return { child, done };
    }

    async function get<T>(path: string): Promise<T> {
      const r = await fetch(`${url}${path}`, { headers: auth });
      expect(r.status, `GET ${path}`).toBe(200);
      return (await r.json()) as T;
    }

    async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
      const end = Date.now() + ms;
      for (;;) {
        const v = await probe();
        if (v !== undefined) return v;
        if (Date.now() > end) throw new Error(`never: ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    const inFlight = (callId: string): Promise<InFlight> =>
      until(`${callId} in flight`, async () =>
        (await get<{ in_flight: InFlight[] }>("/v1/state")).in_flight.find((f) => f.call_id === callId),
      );

    async function mcp(name: string): Promise<Client> {
      const client = new Client({ name, version: "1.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      mcpClients.push(client);
      return client;
    }

    /** An action's one motion in the simulator's log: its start and end times, and how many times it started. */
    function motion(actionId: string): { starts: number; start: number; end: number; outcome: string | undefined } {
      const mine = readEffects(effectsLog).filter((e: EffectLine) => e.action_id === actionId);
      const starts = mine.filter((e) => e.event === "motion_start");
      const end = mine.find((e) => e.event === "motion_end");
      return { starts: starts.length, start: starts[0]?.t ?? NaN, end: end?.t ?? NaN, outcome: end?.outcome };
    }

    const answerOf = async (callId: string): Promise<Output> => {
      const a = await get<{ response: { output?: Output; error?: Output } }>(`/v1/calls/${callId}`);
      return (a.response.output ?? a.response.error)!;
    };

    it("an agent and an MCP client at once: a shared joint queues, disjoint joints run together (effects log), and the history lists both clients", async () => {
      const host = await mcp("e2e-host");
      const run = agent(
        script("together", [
          { id: "ag-pan", name: "move_joints", args: { positions: { shoulder_pan: 0.9 }, speed: 0.25 } },
          // About 5 s (1.5 rad at 0.15 of 2 rad/s): long enough to be met by the MCP client's calls.
          { id: "ag-elbow", name: "move_joints", args: { positions: { elbow: -0.5 }, speed: 0.15 } },
        ]),
        join(dir, "together.transcript.jsonl"),
      );
      const flying = await inFlight("ag-elbow");
      expect(flying.client).toMatchObject({ kind: "agent" });
      const [shared, disjoint] = await Promise.all([
        host.callTool({ name: "move_joints", arguments: { positions: { elbow: 0.3 } } }),
        host.callTool({ name: "move_joints", arguments: { positions: { wrist_3: 0.6 } } }),
      ]);
      const outcome = await run.done;
      expect(outcome.code, outcome.stderr).toBe(0);
      const finished = JSON.parse(outcome.stdout.trim().split("\n").pop()!) as {
        responses: { id: string; status: string }[];
        client: { kind: string };
        bridge: string;
      };
      expect(finished.responses).toEqual([
        { id: "ag-pan", name: "move_joints", status: "done" },
        { id: "ag-elbow", name: "move_joints", status: "done" },
      ]);
      expect(finished).toMatchObject({ client: { kind: "agent" }, bridge: url });

      const sharedOut = shared.structuredContent as Output;
      const disjointOut = disjoint.structuredContent as Output;
      expect(sharedOut.status).toBe("done");
      expect(disjointOut.status).toBe("done");
      const agentElbow = motion((await answerOf("ag-elbow")).action_id!);
      const agentPan = motion((await answerOf("ag-pan")).action_id!);
      const mcpElbow = motion(sharedOut.action_id!);
      const mcpWrist = motion(disjointOut.action_id!);
      for (const m of [agentElbow, agentPan, mcpElbow, mcpWrist]) expect(m.starts).toBe(1);
      // Shared elbow: the MCP client's motion started only after the agent's had ended.
      expect(mcpElbow.start).toBeGreaterThanOrEqual(agentElbow.end);
      // Disjoint wrist_3: it ran while the agent's elbow motion was still running.
      expect(mcpWrist.start).toBeLessThan(agentElbow.end);
      expect(mcpWrist.end).toBeGreaterThan(agentElbow.start);

      // The history (what the console shows and filters by) names both clients.
      const clients = await get<{ clients: { client: { kind: string; name: string } }[] }>("/v1/clients");
      expect(clients.clients.map((c) => c.client.kind)).toEqual(expect.arrayContaining(["agent", "mcp"]));
      expect(clients.clients.find((c) => c.client.kind === "mcp")?.client.name).toBe("e2e-host 1.0");
      const byAgent = await get<{ actions: { call_id: string }[] }>("/v1/actions?client_kind=agent");
      expect(byAgent.actions.map((a) => a.call_id).sort()).toEqual(["ag-elbow", "ag-pan"]);
      const byMcp = await get<{ actions: { action_id: string }[] }>("/v1/actions?client_kind=mcp");
      expect(byMcp.actions.map((a) => a.action_id).sort()).toEqual([sharedOut.action_id, disjointOut.action_id].sort());
    }, 120_000);

    it("an approval-gated call of the agent is approved with `armbridge approve`: exactly one motion runs", async () => {
      const run = agent(
        script("gated", [{ id: "ag-grip", name: "set_gripper", args: { position: 0.3 } }]),
        join(dir, "gated.transcript.jsonl"),
      );
      const pending = await until("the agent's approval request", async () =>
        (
          await get<{ approvals: { id: string; call_id: string; client: { kind: string } | null }[] }>("/v1/approvals")
        ).approvals.find((a) => a.call_id === "ag-grip"),
      );
      expect(pending.client).toMatchObject({ kind: "agent" });
      const approved = await runCli([
        "approve",
        pending.id,
        "--operator",
        "ana",
        "--url",
        url,
        "--token",
        OPERATOR_TOKEN,
      ]);
      expect(approved.code, approved.stderr).toBe(0);
      const outcome = await run.done;
      expect(outcome.code, outcome.stderr).toBe(0);
      const out = await answerOf("ag-grip");
      expect(out.status).toBe("done");
      expect(motion(out.action_id!)).toMatchObject({ starts: 1, outcome: "reached" });
      expect(
        readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.joints.includes("gripper")),
      ).toHaveLength(1);
    }, 120_000);

    it("SIGKILL of the agent mid-motion: serve settles the motion by itself; the same call ids run again replay it and move nothing", async () => {
      const path = script("killed", [
        { id: "ag-kill", name: "move_joints", args: { positions: { wrist_1: -1.4 }, speed: 0.15 } },
      ]);
      const run = agent(path, join(dir, "killed-1.transcript.jsonl"));
      const flying = await inFlight("ag-kill");
      run.child.kill("SIGKILL");
      expect((await run.done).signal).toBe("SIGKILL");
      // No restart of anything: serve follows the motion to its end and records it.
      const settled = await answerOf("ag-kill");
      expect(settled).toMatchObject({ status: "done", action_id: flying.action_id });
      const row = await get<{ state: string }>(`/v1/actions/${flying.action_id}`);
      expect(row.state).toBe("done");
      expect(motion(flying.action_id)).toMatchObject({ starts: 1, outcome: "reached" });

      const startsBefore = readEffects(effectsLog).filter((e) => e.event === "motion_start").length;
      const again = agent(path, join(dir, "killed-2.transcript.jsonl"));
      const outcome = await again.done;
      expect(outcome.code, outcome.stderr).toBe(0);
      const finished = JSON.parse(outcome.stdout.trim().split("\n").pop()!) as {
        responses: { id: string; status: string }[];
      };
      expect(finished.responses).toEqual([{ id: "ag-kill", name: "move_joints", status: "done" }]);
      // The recorded result, not a second motion.
      expect(readEffects(effectsLog).filter((e) => e.event === "motion_start")).toHaveLength(startsBefore);
      const transcript = readFileSync(join(dir, "killed-2.transcript.jsonl"), "utf8");
      expect(transcript).toContain(flying.action_id);
    }, 120_000);

    it("mcp --bridge relays a stdio host to serve's /mcp: the call moves the arm once, recorded under the host's name", async () => {
      const client = new Client({ name: "stdio-host", version: "2.0" });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, "mcp", "--bridge", url, "--token", TOKEN],
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? "", ARMBRIDGE_LOG_LEVEL: "warn" },
          stderr: "ignore",
        }),
      );
      mcpClients.push(client);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("move_joints");
      const r = await client.callTool({ name: "move_joints", arguments: { positions: { wrist_2: 0.4 } } });
      const out = r.structuredContent as Output;
      expect(out.status).toBe("done");
      expect(motion(out.action_id!)).toMatchObject({ starts: 1, outcome: "reached" });
      const row = await get<{ client: { kind: string; name: string } | null }>(`/v1/actions/${out.action_id!}`);
      expect(row.client).toMatchObject({ kind: "mcp", name: "stdio-host 2.0" });
    }, 60_000);
  },
);
