import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startSimProcess, type SimProcess } from "./startSimProcess.js";
import { motionsEnded as motionsEndedIn, readEffects, type EffectLine } from "../../firmware-sim/readEffects.js";
import { within } from "../cli/processes.js";

// `armbridge mcp` as a host runs it, a real process on real pipes: however the
// host goes away — SIGHUP (its terminal closed), stdin closed, stdout closed
// (the next answer meets EPIPE) — the bridge shuts down cleanly: waits ended,
// transport and ledger closed (the ledger's owner file is removed only by
// IntentLedger.close), exit code 0, and promptly, a motion in flight or not.
const CLI_MAIN = join(ROOT, "dist", "src", "surfaces", "cli", "main.js");
const built = existsSync(CLI_MAIN);
if (!built) console.warn(`skipping mcp host-gone: ${CLI_MAIN} is missing; run \`npm run build\` first`);

/** Well inside main.ts's 5 s "a handle was left open" net plus the bridge's own shutdown. */
const EXIT_WITHIN_MS = 12_000;

interface McpChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly dataDir: string;
  /** Sends one JSON-RPC message as a line on stdin. */
  send(message: object): void;
  /** The answer to request `id`. */
  answer(id: number): Promise<{ result?: unknown; error?: unknown }>;
  stderr(): string;
  /** Exit code and signal, or "hung" when it did not end within `ms`. */
  exit(ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | "hung">;
}

describe.skipIf(!built)("armbridge mcp: the host going away shuts it down cleanly (needs dist: npm run build)", () => {
  let dir: string;
  let sim: SimProcess;
  const children: McpChild[] = [];
  const effectsPath = (): string => join(dir, "effects.jsonl");
  const effects = (): EffectLine[] => readEffects(effectsPath());

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "armbridge-mcp-gone-"));
    sim = await startSimProcess(["--effects-log", effectsPath()]);
  });
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function startMcp(name: string): Promise<McpChild> {
    const dataDir = join(dir, name);
    const child = spawn(process.execPath, [CLI_MAIN, "mcp", "--serial", sim.link, "--data", dataDir], {
      cwd: ROOT,
      env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "info" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    // Our end of the pipes may be closed on purpose; a write to it then is not this test's failure.
    child.stdin.on("error", () => undefined);
    child.stdout.on("error", () => undefined);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const waiting = new Map<number, (m: { result?: unknown; error?: unknown }) => void>();
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
      if (typeof m.id === "number") waiting.get(m.id)?.(m);
    });
    const mcp: McpChild = {
      child,
      dataDir,
      send: (message) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"),
      answer: (id) => new Promise((resolve) => waiting.set(id, resolve)),
      stderr: () => err,
      exit: (ms) => within(exited, ms),
    };
    children.push(mcp);
    mcp.send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "host-gone-test", version: "1" } },
    });
    const init = await mcp.answer(1);
    expect(init.error, `initialize failed; stderr: ${err}`).toBeUndefined();
    mcp.send({ method: "notifications/initialized" });
    return mcp;
  }

  /** A move that takes ~10 s (elbow over 2 rad at 0.2 rad/s), its motion_start awaited in the effects log. */
  async function motionInFlight(mcp: McpChild, callId: string, target: number): Promise<void> {
    const before = effects().length;
    mcp.send({
      id: 2,
      method: "tools/call",
      params: {
        name: "move_joints",
        arguments: { positions: { elbow: target }, speed: 0.1 },
        _meta: { "armbridge/call_id": callId },
      },
    });
    const until = Date.now() + 10_000;
    while (
      !effects()
        .slice(before)
        .some((e) => e.event === "motion_start")
    ) {
      if (Date.now() > until) throw new Error(`no motion_start for ${callId}; stderr: ${mcp.stderr()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Waits for the motion under way to end, so the next test starts from rest. */
  const motionsEnded = (): Promise<void> => motionsEndedIn(effectsPath(), 20_000);

  function expectCleanShutdown(mcp: McpChild, outcome: Awaited<ReturnType<McpChild["exit"]>>, why: RegExp): void {
    expect(outcome, `stderr: ${mcp.stderr()}`).toEqual({ code: 0, signal: null });
    // IntentLedger.close() removes it; a process killed before closing its ledger leaves it.
    expect(
      existsSync(join(mcp.dataDir, "ledger.owner.json")),
      "the ledger's owner file is left: the ledger was not closed",
    ).toBe(false);
    expect(mcp.stderr()).toMatch(why);
    expect(mcp.stderr()).not.toContain("still running 5 s after");
    expect(mcp.stderr()).not.toMatch(/Unhandled 'error' event|uncaught/i);
  }

  it("on SIGHUP with a motion in flight", async () => {
    const mcp = await startMcp("sighup");
    await motionInFlight(mcp, "gone-sighup", -1.0);
    mcp.child.kill("SIGHUP");
    expectCleanShutdown(mcp, await mcp.exit(EXIT_WITHIN_MS), /"why":"SIGHUP"/);
    await motionsEnded();
  }, 60_000);

  it("when the host closes stdin with a motion in flight", async () => {
    const mcp = await startMcp("stdin");
    await motionInFlight(mcp, "gone-stdin", 1.0);
    mcp.child.stdin.end();
    expectCleanShutdown(mcp, await mcp.exit(EXIT_WITHIN_MS), /"why":"stdin closed"/);
    await motionsEnded();
  }, 60_000);

  it("when the host closes stdout (the next answer meets EPIPE)", async () => {
    const mcp = await startMcp("stdout");
    mcp.child.stdout.destroy();
    // Something to answer: the write of that answer is what finds the pipe closed.
    mcp.send({ id: 3, method: "tools/list", params: {} });
    expectCleanShutdown(mcp, await mcp.exit(EXIT_WITHIN_MS), /"why":"stdout closed \(EPIPE\)"/);
  }, 60_000);
});
