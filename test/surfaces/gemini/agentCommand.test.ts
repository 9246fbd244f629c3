import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { DEFAULT_CONFIG_PATH } from "../../../src/config/loadConfig.js";
import { startSimulator, type RunningSimulator } from "../../../firmware-sim/startSimulator.js";
import { run } from "../../../src/surfaces/cli/agent/agentCommand.js";
import { runCli } from "../../../src/surfaces/cli/runCli.js";
import { decodeImage } from "../../../src/imaging/encodeImage.js";
import { ScriptedGeminiServer } from "../../fixtures/gemini/ScriptedGeminiServer.js";
import { readEffects } from "../../firmware-sim/readEffects.js";

const DEMO = `replay:${join(import.meta.dirname, "../../../config/demo-session.jsonl")}`;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The agent command's run, or (for what `armbridge` itself does for every command, like --help) the whole CLI. */
async function agent(argv: string[], env: NodeJS.ProcessEnv = {}, via: "run" | "armbridge" = "run"): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => (out += c.toString()));
  stderr.on("data", (c: Buffer) => (err += c.toString()));
  const io = { stdout, stderr, env: { ARMBRIDGE_LOG_LEVEL: "silent", ...env } };
  const code = via === "run" ? await run(argv, io) : await runCli(["agent", ...argv], io);
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
    const r = await agent(["--help"], {}, "armbridge");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--model ID|replay:FILE");
    expect(r.stdout).toContain("--serial LINK");
  });

  it.each([
    ["no instruction", ["--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["two instructions", ["a", "b", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    [
      "a bad --max-turns",
      ["a", "--max-turns", "0", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    ["an unknown flag", ["a", "--turbo", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["--live with a replay", ["a", "--live", "--model", DEMO, "--serial", "tcp://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    [
      "a missing replay file",
      ["a", "--model", "replay:/nonexistent.jsonl", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_GEMINI_REPLAY",
    ],
    ["no arm", ["a", "--model", DEMO], "ARMB_ERR_CLI_USAGE"],
    [
      "a Live-only flag without --live",
      ["a", "--stream-camera", "overhead", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--fps without --stream-camera",
      ["a", "--live", "--fps", "1", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--fps above the bound",
      ["a", "--live", "--stream-camera", "overhead", "--fps", "30", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--context-compression neither on nor off",
      ["a", "--live", "--context-compression", "maybe", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "a compression target not below its trigger",
      [
        "a",
        "--live",
        "--compression-trigger-tokens",
        "1000",
        "--compression-target-tokens",
        "1000",
        "--serial",
        "tcp://127.0.0.1:1",
      ],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "compression thresholds with compression off",
      [
        "a",
        "--live",
        "--context-compression",
        "off",
        "--compression-trigger-tokens",
        "1000",
        "--serial",
        "tcp://127.0.0.1:1",
      ],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--model-attempts with --live",
      ["a", "--live", "--model-attempts", "3", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--reconnect-attempts 0",
      ["a", "--live", "--reconnect-attempts", "0", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--bridge with an arm of its own",
      ["a", "--bridge", "http://127.0.0.1:1", "--token", "t", "--serial", "tcp://127.0.0.1:1"],
      "ARMB_ERR_CLI_USAGE",
    ],
    ["--bridge without a token", ["a", "--bridge", "http://127.0.0.1:1"], "ARMB_ERR_CLI_USAGE"],
    ["--bridge that is not an http URL", ["a", "--bridge", "127.0.0.1:8640", "--token", "t"], "ARMB_ERR_CLI_USAGE"],
    [
      "--bridge with --http (the console is serve's)",
      ["a", "--bridge", "http://127.0.0.1:1", "--token", "t", "--http", "127.0.0.1:0"],
      "ARMB_ERR_CLI_USAGE",
    ],
    [
      "--bridge with --stream-camera",
      ["a", "--live", "--stream-camera", "overhead", "--bridge", "http://127.0.0.1:1", "--token", "t"],
      "ARMB_ERR_CLI_USAGE",
    ],
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
      const r = await agent([
        "show the demo",
        "--model",
        DEMO,
        "--serial",
        sim.link,
        "--data",
        join(dir, "data"),
        "--transcript",
        transcript,
      ]);
      expect(r.stderr).not.toContain("ARMB_ERR");
      expect(r.code).toBe(0);
      const finished = JSON.parse(r.stdout.trim()) as {
        event: string;
        ended: string;
        responses: { id: string; status: string }[];
        notes: string[];
      };
      expect(finished).toMatchObject({ event: "agent_finished", ended: "answered", notes: [] });
      expect(finished.responses.map((x) => `${x.id}:${x.status}`)).toEqual([
        "d1:done",
        "d2:done",
        "q1:done",
        "q2:done",
        "t1:done",
        "u1:unknown",
        "s1:done",
      ]);
      expect(r.stderr).toMatch(/\[agent\] q2 move_joints: queued/);
      expect(r.stderr).toMatch(/armbridge confirm act_\w+ --outcome/);
      expect(readFileSync(transcript, "utf8")).toContain('"type":"run_ended"');
    });

    it("embedded, it serves its own console while it drives (URL and token on stderr): an approval gate there is answerable, and the motion runs once", async () => {
      const raw = parse(readFileSync(DEFAULT_CONFIG_PATH, "utf8")) as Record<string, Record<string, unknown>>;
      raw.arm!.urdf = join(dirname(DEFAULT_CONFIG_PATH), String(raw.arm!.urdf));
      const config = join(dir, "gated.yaml");
      writeFileSync(config, stringify({ ...raw, approval: { set_gripper: "always" }, approval_timeout_s: 60 }));
      const script = join(dir, "grip.jsonl");
      writeFileSync(
        script,
        `${JSON.stringify({ calls: [{ id: "g1", name: "set_gripper", args: { position: 0.4 } }] })}\n${JSON.stringify({ text: "ok" })}\n`,
      );
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = "";
      let err = "";
      stdout.on("data", (c: Buffer) => (out += c.toString()));
      const consoleUrl = new Promise<URL>((resolve) =>
        stderr.on("data", (c: Buffer) => {
          err += c.toString();
          const m = /console (http:\/\/127\.0\.0\.1:\d+\/console#token=\S+)/.exec(err);
          if (m) resolve(new URL(m[1]!));
        }),
      );
      const effectsLog = join(dir, "effects.jsonl");
      const gatedSim = await startSimulator({ link: "tcp", port: 0, logger: pino({ level: "silent" }), effectsLog });
      try {
        const running = run(
          [
            "grip",
            "--model",
            `replay:${script}`,
            "--serial",
            gatedSim.link,
            "--config",
            config,
            "--data",
            join(dir, "data"),
          ],
          { stdout, stderr, env: { ARMBRIDGE_LOG_LEVEL: "silent" } },
        );
        const url = await consoleUrl;
        const auth = {
          authorization: `Bearer ${decodeURIComponent(url.hash.slice("#token=".length))}`,
          "content-type": "application/json",
        };
        let approval: { id: string; call_id: string; client: { kind: string } | null } | undefined;
        for (let i = 0; i < 400 && !approval; i++) {
          const r = (await (await fetch(`${url.origin}/v1/approvals`, { headers: auth })).json()) as {
            approvals: { id: string; call_id: string; client: { kind: string } | null }[];
          };
          approval = r.approvals.find((a) => a.call_id === "g1");
          if (!approval) await new Promise((res) => setTimeout(res, 25));
        }
        expect(approval?.client, err).toMatchObject({ kind: "agent" });
        const decided = await fetch(`${url.origin}/v1/approvals/${approval!.id}/approve`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ operator: "ana" }),
        });
        expect(decided.status).toBe(200);
        expect(await running, err).toBe(0);
        expect(JSON.parse(out.trim())).toMatchObject({ ended: "answered", responses: [{ id: "g1", status: "done" }] });
        // Ground truth: the simulator started exactly one gripper motion.
        expect(
          readEffects(effectsLog).filter((e) => e.event === "motion_start" && e.joints.includes("gripper")),
        ).toHaveLength(1);
      } finally {
        await gatedSim.close();
      }
    });

    it("--max-turns short of the session: exit 3 and ended max_turns", async () => {
      const r = await agent([
        "demo",
        "--model",
        DEMO,
        "--serial",
        sim.link,
        "--data",
        join(dir, "data"),
        "--max-turns",
        "1",
      ]);
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
          conn.send({
            serverContent: { modelTurn: { role: "model", parts: [{ text: "Gripper at 0.3." }] }, turnComplete: true },
          });
        };
        const r = await agent(
          [
            "close the gripper a bit",
            "--live",
            "--model",
            "gemini-live-test",
            "--base-url",
            server.baseUrl,
            "--serial",
            sim.link,
            "--data",
            join(dir, "data"),
          ],
          { GEMINI_API_KEY: "k" },
        );
        expect(server.scriptErrors).toEqual([]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout.trim())).toMatchObject({
          ended: "answered",
          text: "Gripper at 0.3.",
          responses: [{ id: "L1", name: "set_gripper", status: "done" }],
        });
      } finally {
        await server.close();
      }
    });

    it("--live --context-compression off sends no contextWindowCompression; the outcome line carries the run's metrics", async () => {
      const server = await ScriptedGeminiServer.start();
      try {
        server.liveScript = async (conn) => {
          await conn.next("clientContent");
          conn.send({
            serverContent: { modelTurn: { role: "model", parts: [{ text: "Nothing to do." }] }, turnComplete: true },
          });
        };
        const r = await agent(
          [
            "idle",
            "--live",
            "--context-compression",
            "off",
            "--model",
            "m",
            "--base-url",
            server.baseUrl,
            "--serial",
            sim.link,
            "--data",
            join(dir, "data"),
          ],
          { GEMINI_API_KEY: "k" },
        );
        expect(r.code).toBe(0);
        const setup = server.connections[0]!.setup.setup as Record<string, unknown>;
        expect(setup).not.toHaveProperty("contextWindowCompression");
        expect(setup).toHaveProperty("sessionResumption");
        expect(JSON.parse(r.stdout.trim())).toMatchObject({
          ended: "answered",
          metrics: { reconnects: 0, retries: 0, joined_repeats: 0, model_requests: 1 },
        });
      } finally {
        await server.close();
      }
    });

    it("--stream-camera sends the camera's frames as realtime video: JPEG, within the size bound, no faster than --fps", async () => {
      const server = await ScriptedGeminiServer.start();
      const frames = (): { mimeType: string; data: string }[] =>
        (server.connections[0]?.received ?? []).flatMap((m) =>
          "realtimeInput" in m ? [(m.realtimeInput as { video: { mimeType: string; data: string } }).video] : [],
        );
      let watched = 0;
      try {
        server.liveScript = async (conn) => {
          await conn.next("clientContent");
          const t0 = Date.now();
          while (frames().length < 3) await new Promise((r) => setTimeout(r, 50));
          watched = Date.now() - t0;
          conn.send({
            serverContent: {
              modelTurn: { role: "model", parts: [{ text: "I watched the table." }] },
              turnComplete: true,
            },
          });
        };
        const r = await agent(
          [
            "watch",
            "--live",
            "--stream-camera",
            "overhead",
            "--fps",
            "2",
            "--model",
            "m",
            "--base-url",
            server.baseUrl,
            "--serial",
            sim.link,
            "--data",
            join(dir, "data"),
          ],
          { GEMINI_API_KEY: "k" },
        );
        expect(server.scriptErrors).toEqual([]);
        expect(r.code).toBe(0);
        const sent = frames();
        expect(sent.length).toBeGreaterThanOrEqual(3);
        // 2 a second at most: the third frame cannot come sooner than ~1 s after the first.
        expect(watched).toBeGreaterThanOrEqual(900);
        for (const f of sent) {
          expect(f.mimeType).toBe("image/jpeg");
          const bytes = Buffer.from(f.data, "base64");
          expect(bytes.length).toBeLessThanOrEqual(256 * 1024);
          const image = decodeImage(bytes);
          expect(Math.max(image.width, image.height)).toBeLessThanOrEqual(768);
        }
        expect(r.stderr).toMatch(/camera stream overhead: started/);
      } finally {
        await server.close();
      }
    });

    it("--stream-camera naming no configured camera: exit 2 before any session opens", async () => {
      const server = await ScriptedGeminiServer.start();
      try {
        const r = await agent(
          [
            "watch",
            "--live",
            "--stream-camera",
            "ceiling",
            "--model",
            "m",
            "--base-url",
            server.baseUrl,
            "--serial",
            sim.link,
            "--data",
            join(dir, "data"),
          ],
          { GEMINI_API_KEY: "k" },
        );
        expect(r.code).toBe(2);
        expect(r.stderr).toContain("ARMB_ERR_CLI_USAGE");
        expect(r.stderr).toContain("configured: overhead");
        expect(server.wsPaths).toEqual([]);
      } finally {
        await server.close();
      }
    });
  });
});
