import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../../firmware-sim/startSimulator.js";
import { run } from "../../../src/surfaces/gemini/agentCommand.js";
import { ScriptedGeminiServer } from "../../fixtures/gemini/ScriptedGeminiServer.js";

const DEMO = `replay:${join(import.meta.dirname, "../../../config/demo-session.jsonl")}`;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function agent(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => (out += c.toString()));
  stderr.on("data", (c: Buffer) => (err += c.toString()));
  const code = await run(argv, { stdout, stderr, env: { ARMBRIDGE_LOG_LEVEL: "silent", ...env } });
  return { code, stdout: out, stderr: err };
}

describe("armbridge agent", () => {
  it("without GEMINI_API_KEY and without a replay model: ARMB_ERR_GEMINI_NO_KEY, exit 2, before touching an arm", async () => {
    const r = await agent(["wave", "--serial", "tcp://127.0.0.1:1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ARMB_ERR_GEMINI_NO_KEY");
    expect(r.stdout).toBe("");
    const noArm = await agent(["wave"]);
    expect(noArm.code).toBe(2);
    expect(noArm.stderr).toContain("ARMB_ERR_GEMINI_NO_KEY");
  });

  it("--help prints usage and exits 0", async () => {
    const r = await agent(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--model ID|replay:FILE");
    expect(r.stdout).toContain("--serial LINK");
  });

  it.each([
    ["no instruction", ["--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["two instructions", ["a", "b", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["a bad --max-turns", ["a", "--max-turns", "0", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["an unknown flag", ["a", "--turbo", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["--live with a replay", ["a", "--live", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["a missing replay file", ["a", "--model", "replay:/nonexistent.jsonl", "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_GEMINI_REPLAY"],
    ["no arm", ["a", "--model", DEMO], "ARMB_ERR_CLI_USAGE"],
  ])("%s: exit 2 with the code", async (_what, argv, code) => {
    const r = await agent(argv, { GEMINI_API_KEY: "k" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(code);
  });

  describe("on firmware-sim", () => {
    let sim: RunningSimulator;
    let dir: string;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), "armb-agent-cli-"));
      sim = await startSimulator({ link: "tcp", port: 0, logger: pino({ level: "silent" }), stallJoints: ["wrist_2"] });
    });
    afterEach(async () => {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("replays the demo session: progress on stderr, one JSON line on stdout, the transcript written, exit 0", async () => {
      const transcript = join(dir, "run.jsonl");
      const r = await agent(["show the demo", "--model", DEMO, "--serial", sim.link, "--data", join(dir, "data"), "--transcript", transcript]);
      expect(r.stderr).not.toContain("ARMB_ERR");
      expect(r.code).toBe(0);
      const finished = JSON.parse(r.stdout.trim()) as { event: string; ended: string; responses: { id: string; status: string }[]; notes: string[] };
      expect(finished).toMatchObject({ event: "agent_finished", ended: "answered", notes: [] });
      expect(finished.responses.map((x) => `${x.id}:${x.status}`)).toEqual(["d1:done", "d2:done", "q1:done", "q2:done", "t1:done", "u1:unknown", "s1:done"]);
      expect(r.stderr).toMatch(/\[agent\] q2 move_joints: queued/);
      expect(r.stderr).toMatch(/armbridge confirm act_\w+ --outcome/);
      expect(readFileSync(transcript, "utf8")).toContain('"type":"run_ended"');
    });

    it("--max-turns short of the session: exit 3 and ended max_turns", async () => {
      const r = await agent(["demo", "--model", DEMO, "--serial", sim.link, "--data", join(dir, "data"), "--max-turns", "1"]);
      expect(r.code).toBe(3);
      expect(JSON.parse(r.stdout.trim())).toMatchObject({ ended: "max_turns", turns: 1 });
    });

    it("--live --base-url runs a Live session against a local BidiGenerateContent server", async () => {
      const server = await ScriptedGeminiServer.start();
      try {
        server.liveScript = async (conn) => {
          await conn.next("clientContent");
          conn.send({ toolCall: { functionCalls: [{ id: "L1", name: "set_gripper", args: { position: 0.3 } }] } });
          await conn.next("toolResponse");
          conn.send({ serverContent: { modelTurn: { role: "model", parts: [{ text: "Gripper at 0.3." }] }, turnComplete: true } });
        };
        const r = await agent(["close the gripper a bit", "--live", "--model", "gemini-live-test", "--base-url", server.baseUrl, "--serial", sim.link, "--data", join(dir, "data")], { GEMINI_API_KEY: "k" });
        expect(server.scriptErrors).toEqual([]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout.trim())).toMatchObject({ ended: "answered", text: "Gripper at 0.3.", responses: [{ id: "L1", name: "set_gripper", status: "done" }] });
      } finally {
        await server.close();
      }
    });
  });
});
