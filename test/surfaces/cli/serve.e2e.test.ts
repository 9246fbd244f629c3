import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, interrupt, runCli, SIM, startReady, type ReadyProcess } from "./processes.js";

// Real processes: firmware-sim over TCP and `armbridge serve`, both from dist/
// (`npm test` builds first).
const built = existsSync(CLI) && existsSync(SIM);
if (!built) console.warn(`skipping serve end-to-end: ${CLI} or ${SIM} is missing; run \`npm run build\` first`);

const TOKEN = "e2e-token";
let dir: string;
let sim: ReadyProcess;
let serve: ReadyProcess;
let url: string;

interface CallsAnswer {
  responses: { id: string; name: string; response: { output: { status: string; action_id: string } } }[];
}

async function calls(body: unknown): Promise<{ status: number; json: CallsAnswer }> {
  const res = await fetch(`${url}/v1/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as CallsAnswer };
}

describe.skipIf(!built)("armbridge serve against firmware-sim (needs dist: npm run build)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-serve-e2e-"));
    // The first motion on the elbow stalls half-way: the bridge must call it unknown.
    sim = await startReady(SIM, [
      "--link",
      "tcp",
      "--port",
      "0",
      "--seed",
      "1",
      "--motion-time",
      "fixed:150",
      "--stall-joint",
      "elbow",
    ]);
    serve = await startReady(CLI, [
      "serve",
      "--serial",
      String(sim.ready.link),
      "--http",
      "127.0.0.1:0",
      "--token",
      TOKEN,
      "--data",
      join(dir, "data"),
    ]);
    url = String(serve.ready.http);
  });

  afterAll(async () => {
    if (serve) await interrupt(serve);
    if (sim) await interrupt(sim);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("prints exactly one ready line with the http and console URLs", () => {
    expect(Object.keys(serve.ready).sort()).toEqual(["console", "data", "event", "http"]);
    expect(serve.ready.data).toBe(join(dir, "data"));
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The console link carries the operator's token (made at start), never the API token agents hold.
    const m = /^(.*)\/console#token=(.+)$/.exec(String(serve.ready.console));
    expect(m?.[1]).toBe(url);
    expect(m?.[2]).not.toBe(TOKEN);
    expect(m?.[2]?.length).toBeGreaterThanOrEqual(32);
  });

  it("moves a joint: POST /v1/calls move_joints is done", async () => {
    const r = await calls({
      calls: [{ id: "e2e-1", name: "move_joints", args: { positions: { shoulder_pan: 0.3 } } }],
      deadline_ms: 5000,
    });
    expect(r.status).toBe(200);
    expect(r.json.responses[0]).toMatchObject({
      id: "e2e-1",
      name: "move_joints",
      response: { output: { status: "done", timed_out: false } },
    });
  });

  it("runs the operator loop through the CLI: unknown → blocked → confirm → runs", async () => {
    const first = await calls({
      calls: [{ id: "e2e-stall", name: "move_joints", args: { positions: { elbow: 1.6 } } }],
    });
    const unknown = first.json.responses[0]!.response.output;
    expect(unknown.status).toBe("unknown");
    // The arm's stall fault says how it clears (a stop on the axis, or its next motion).
    const state = (await (
      await fetch(`${url}/v1/state`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { faults: string[]; fault_help: { fault: string; clears: string }[] };
    expect(state.faults).toContain("stall:elbow");
    expect(state.fault_help.find((f) => f.fault === "stall:elbow")?.clears).toMatch(/stop on elbow/);

    const env = { ARMBRIDGE_URL: url, ARMBRIDGE_TOKEN: TOKEN };
    const blocked = await runCli(
      ["call", "move_joints", "--args", '{"positions":{"elbow":1.2}}', "--id", "e2e-blocked"],
      env,
    );
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout).response.output).toMatchObject({
      status: "blocked",
      blocked_by: [unknown.action_id],
    });

    const listed = await runCli(["actions", "--state", "unknown"], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).actions.map((a: { action_id: string }) => a.action_id)).toEqual([
      unknown.action_id,
    ]);

    const confirmed = await runCli(
      ["confirm", unknown.action_id, "--outcome", "not_done", "--operator", "Ada", "--note", "stalled on the fixture"],
      env,
    );
    expect(confirmed.code).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({
      action_id: unknown.action_id,
      state: "confirmed_not_done",
      operator: "Ada",
    });

    const twice = await runCli(["confirm", unknown.action_id, "--outcome", "done", "--operator", "Ada"], env);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain("ARMB_ERR_ACTION_NOT_UNKNOWN");

    const again = await runCli(
      ["call", "move_joints", "--args", '{"positions":{"elbow":1.2}}', "--id", "e2e-after"],
      env,
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).response.output.status).toBe("done");
  });

  it("shuts down cleanly on SIGINT with exit 0 and nothing more on stdout", async () => {
    expect(await interrupt(serve)).toBe(0);
    expect(serve.lines).toEqual([]);
    expect(serve.stderr()).not.toContain("still running");
  });
});
