import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startSimProcess, type SimProcess } from "./startSimProcess.js";

// The real command, as an MCP host would configure it: `armbridge mcp` from dist/.
const CLI_MAIN = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");
const mcpArgv = (args: readonly string[]): string[] => [CLI_MAIN, "mcp", ...args];

interface Effect {
  event: string;
  action_id: string | null;
  joints: string[];
}

describe("armbridge mcp over stdio against firmware-sim", () => {
  let dir: string;
  let sim: SimProcess;
  let client: Client;
  let transport: StdioClientTransport;
  const effectsPath = (): string => join(dir, "effects.jsonl");
  const effects = (): Effect[] =>
    readFileSync(effectsPath(), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as Effect);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-mcp-"));
    // wrist_3's first motion stalls half-way: the arm ends it short after moving, so its outcome is unknown.
    // wrist_3, not wrist_2: an unknown motion counts as in flight over its whole path, and with #20's link
    // volumes a wrist_2 swing (either way, elbow at 0.3) passes within 3-5 mm of forearm_link's box, so
    // the envelope would refuse this file's later moves beside it; +0.9 on wrist_2 would also swing the
    // fingers past keep_in. A wrist_3 turn is clear of every other link.
    sim = await startSimProcess(["--effects-log", effectsPath(), "--stall-joint", "wrist_3"]);
    transport = new StdioClientTransport({
      command: process.execPath,
      args: mcpArgv(["--serial", sim.link, "--data", join(dir, "data")]),
      env: { ...(process.env as Record<string, string>), ARMBRIDGE_LOG_LEVEL: "warn" },
      stderr: "pipe",
    });
    client = new Client({ name: "armbridge-test", version: "1.0.0" });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists every registry tool with its JSON Schema and hints", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual([
      "get_action_status",
      "get_arm_state",
      "get_camera_image",
      "move_joints",
      "move_to_image_point",
      "move_to_named_pose",
      "move_to_point",
      "move_to_pose",
      "set_gripper",
      "stop",
    ]);
    const move = byName.get("move_joints")!;
    expect(move.inputSchema.type).toBe("object");
    expect(Object.keys(move.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["positions", "speed"]));
    expect(move.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get("get_arm_state")!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get("stop")!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(move.outputSchema?.required).toEqual(
      expect.arrayContaining(["status", "message", "timed_out", "settled_by"]),
    );
  });

  it("runs move_joints on the arm: done with an action id, moved exactly once", async () => {
    const result = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: 0.3 }, speed: 1 } });
    const out = result.structuredContent as {
      status: string;
      action_id?: string;
      timed_out: boolean;
      settled_by: string;
      message: string;
    };
    expect(out.status).toBe("done");
    expect(out.action_id).toMatch(/^act_/);
    expect(out.timed_out).toBe(false);
    expect(result.isError).toBe(false);
    const text = (result.content as { type: string; text: string }[])[0]!;
    expect(text.type).toBe("text");
    expect(text.text.startsWith(out.message)).toBe(true);
    expect(JSON.parse(text.text.slice(out.message.length + 1))).toEqual({ output: out });
    const starts = effects().filter((e) => e.event === "motion_start" && e.action_id === out.action_id);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.joints).toEqual(["elbow"]);
  });

  it("rejects invalid arguments without moving anything, as an error the model must fix", async () => {
    const before = effects().length;
    const result = await client.callTool({ name: "move_joints", arguments: { positions: { elbow: 99 } } });
    const out = result.structuredContent as { status: string; error_code: string; issues: { path: string }[] };
    expect(out.status).toBe("rejected");
    expect(out.error_code).toBe("ARMB_ERR_ARGS_INVALID");
    expect(out.issues.map((i) => i.path)).toContain("positions.elbow");
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text.split("\n").slice(1).join("\n"))).toHaveProperty(
      "error",
    );
    expect(effects().length).toBe(before);
  });

  it("answers an unknown tool with the protocol error -32602 (Invalid params), not a tool result", async () => {
    const before = effects().length;
    await expect(client.callTool({ name: "fly", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    expect(effects().length).toBe(before);
  });

  it("reads the arm state: the pose the motion left", async () => {
    const result = await client.callTool({ name: "get_arm_state", arguments: {} });
    const out = result.structuredContent as {
      status: string;
      output: { pose: Record<string, number>; stale: boolean };
    };
    expect(out.status).toBe("done");
    expect(result.isError).toBe(false);
    expect(out.output.pose.elbow).toBeCloseTo(0.3, 2);
    expect(out.output.stale).toBe(false);
  });

  it("answers an unknown as not an error (no host may retry it), and then blocks the joint, also not as an error", async () => {
    const first = await client.callTool({ name: "move_joints", arguments: { positions: { wrist_3: 0.9 } } });
    const out = first.structuredContent as { status: string; action_id: string; resources: string[]; message: string };
    expect(out.status).toBe("unknown");
    expect(out.resources).toEqual(["joint:wrist_3"]);
    expect(first.isError).toBe(false);
    expect(out.message).toMatch(/Do NOT re-run/);
    const again = await client.callTool({ name: "move_joints", arguments: { positions: { wrist_3: 0.9 } } });
    expect(again.structuredContent).toMatchObject({
      status: "blocked",
      error_code: "ARMB_ERR_QUARANTINED",
      blocked_by: [out.action_id],
    });
    expect(again.isError).toBe(false);
    expect(effects().filter((e) => e.event === "motion_start" && e.joints.includes("wrist_3"))).toHaveLength(1);
  });

  it("reports a motion's progress to a host that asks for it", async () => {
    const progress: string[] = [];
    const result = await client.callTool(
      { name: "move_joints", arguments: { positions: { shoulder_pan: 0.5 } } },
      undefined,
      {
        onprogress: (p) => progress.push(p.message ?? ""),
      },
    );
    const out = result.structuredContent as { status: string; action_id: string };
    expect(out.status).toBe("done");
    expect(progress[0]).toBe("queued for joint:shoulder_pan");
    expect(progress).toContain(`started action ${out.action_id} (waiting up to 5000 ms)`);
  });

  it("returns the recorded result for a call id the host repeats, moving nothing again", async () => {
    const meta = { "armbridge/call_id": "host-call-42" };
    const first = await client.callTool({
      name: "move_joints",
      arguments: { positions: { wrist_1: 0.4 }, speed: 1 },
      _meta: meta,
    });
    const second = await client.callTool({
      name: "move_joints",
      arguments: { positions: { wrist_1: 0.4 }, speed: 1 },
      _meta: meta,
    });
    const a = first.structuredContent as { status: string; action_id: string };
    const b = second.structuredContent as { status: string; action_id: string; replayed?: boolean };
    expect(a.status).toBe("done");
    expect(b).toMatchObject({ status: "done", action_id: a.action_id, replayed: true });
    expect(effects().filter((e) => e.event === "motion_start" && e.joints.includes("wrist_1"))).toHaveLength(1);
  });
});

describe("armbridge mcp process lifecycle", () => {
  it("exits 0 by itself when the host closes stdin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "armbridge-mcp-exit-"));
    const sim = await startSimProcess();
    try {
      const child = spawn(process.execPath, mcpArgv(["--serial", sim.link, "--data", join(dir, "data")]), {
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "info" },
      });
      let stderr = "";
      child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
      // Wait until the server is up (its ready log line on stderr), then hang up.
      await new Promise<void>((resolve, reject) => {
        const onData = (): void => {
          if (stderr.includes("MCP server ready")) {
            child.stderr.off("data", onData);
            resolve();
          }
        };
        child.stderr.on("data", onData);
        child.once("exit", () => reject(new Error(`exited early: ${stderr}`)));
      });
      const exited = once(child, "exit");
      child.stdin.end();
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with a usage error naming the problem when no arm is given", async () => {
    const child = spawn(process.execPath, mcpArgv([]), { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain("ARMB_ERR_CLI_USAGE");
  });
});
