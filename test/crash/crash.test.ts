import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { Bridge } from "../../src/bridge/Bridge.js";
import { repeatedStarts, type EffectLine } from "../../firmware-sim/effectsJudge.js";

/**
 * The bridge is killed with SIGKILL mid-call: after its intent is durable
 * and before the command leaves, or after it has left. On restart nothing is
 * re-executed, and the `started` row is settled by observation to what the
 * arm (firmware-sim, a separate process, our ground truth) really did.
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function startProcess(args: string[]): {
  child: ChildProcess;
  next: (event: string) => Promise<Record<string, unknown>>;
} {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ARMBRIDGE_LOG_LEVEL: "silent" },
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiting: { event: string; resolve: (v: Record<string, unknown>) => void }[] = [];
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  createInterface({ input: child.stdout }).on("line", (line) => {
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    lines.push(j);
    for (const w of [...waiting]) {
      if (j.event !== w.event) continue;
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(j);
    }
  });
  const next = (event: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const found = lines.find((l) => l.event === event);
      if (found) return resolve(found);
      waiting.push({ event, resolve });
      child.once("exit", (code) => reject(new Error(`${args[0]} exited (${code}) before ${event}; stderr: ${stderr}`)));
    });
  return { child, next };
}

function effects(path: string): EffectLine[] {
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as EffectLine)
    : [];
}

async function crashScenario(crashPoint: "before-send" | "after-send", simArgs: string[], restartAfterMs = 0) {
  const dir = mkdtempSync(join(tmpdir(), "armbridge-crash-"));
  const log = join(dir, "effects.jsonl");
  const sim = startProcess([
    "dist/firmware-sim/main.js",
    "--link",
    "tcp",
    "--port",
    "0",
    "--seed",
    "3",
    "--effects-log",
    log,
    ...simArgs,
  ]);
  const link = (await sim.next("ready")).link as string;
  const dataDir = join(dir, "data");

  const bridge = startProcess(["test/fixtures/crash-child.mjs", link, dataDir, "call-1", crashPoint]);
  const milestone = await bridge.next(crashPoint === "before-send" ? "intent_written" : "sent");
  const actionId = milestone.action_id as string;
  if (crashPoint === "after-send") {
    // Let the MOVE reach the arm and the motion begin.
    for (let i = 0; i < 100 && !effects(log).some((e) => e.event === "motion_start" && e.action_id === actionId); i++)
      await new Promise((r) => setTimeout(r, 20));
  }
  bridge.child.kill("SIGKILL");
  await new Promise((r) => bridge.child.once("exit", r));
  // A bridge that takes a while to come back leaves the arm's host-silence watchdog time to act.
  await new Promise((r) => setTimeout(r, restartAfterMs));

  // Restart: the bridge reconciles the row the crash left `started`.
  const restarted = await Bridge.start({ transport: { kind: "serial", link }, dataDir });
  try {
    const row = restarted.ledger.get(actionId)!;
    // The same call id again: the recorded result, never a second motion.
    const [again] = await restarted.executor.execute([
      { id: "call-1", name: "move_joints", args: { positions: { elbow: -0.2 } } },
    ]);
    await new Promise((r) => setTimeout(r, 300));
    const truth = effects(log);
    return { row, again: again!.result, truth, actionId };
  } finally {
    await restarted.close();
    sim.child.kill("SIGINT");
  }
}

describe("crash: SIGKILL mid-call, then restart", () => {
  it("killed after the intent is written, before the command leaves: the row is reconciled as failed (voided at the arm), and the arm never moves for it", async () => {
    const { row, again, truth, actionId } = await crashScenario("before-send", ["--motion-time", "fixed:400"]);
    expect(row.state).toBe("failed");
    expect(row.settledBy).toBe("observation");
    expect(truth.filter((e) => e.action_id === actionId && e.event === "motion_start")).toHaveLength(0);
    expect(again).toMatchObject({ status: "failed", replayed: true });
    expect(truth.filter((e) => e.event === "motion_start")).toHaveLength(0);
  });

  it("killed after the command left (watchdog off): the motion completes, the row is reconciled as done, and it runs once", async () => {
    const { row, again, truth, actionId } = await crashScenario("after-send", [
      "--motion-time",
      "fixed:1200",
      "--watchdog-ms",
      "0",
    ]);
    expect(row.state).toBe("done");
    expect(row.settledBy).toBe("observation");
    expect(truth.filter((e) => e.action_id === actionId && e.event === "motion_start")).toHaveLength(1);
    expect(truth.find((e) => e.action_id === actionId && e.event === "motion_end")).toMatchObject({
      outcome: "reached",
    });
    expect(again).toMatchObject({ status: "done", replayed: true });
    expect(repeatedStarts(truth)).toBe(0);
  });

  it("killed after the command left (the arm's watchdog halts it when the host goes silent): the row becomes unknown and quarantines the joint", async () => {
    const { row, again, truth, actionId } = await crashScenario(
      "after-send",
      ["--motion-time", "fixed:3000", "--watchdog-ms", "300"],
      1000,
    );
    expect(truth.find((e) => e.action_id === actionId && e.event === "motion_end")).toMatchObject({
      outcome: "stopped",
    });
    expect(row.state).toBe("unknown");
    expect(again).toMatchObject({ status: "unknown", replayed: true });
    expect(repeatedStarts(truth)).toBe(0);
  });

  it("killed after the command left, and the arm reboots (forgetting the action) before the bridge returns: unknown, never a false 'failed'", async () => {
    const { row, truth, actionId } = await crashScenario(
      "after-send",
      ["--motion-time", "fixed:1500", "--watchdog-ms", "0", "--reboot-rate", "1"],
      1200,
    );
    // Ground truth: the motion started, then the reboot cut it short.
    expect(truth.filter((e) => e.action_id === actionId && e.event === "motion_start")).toHaveLength(1);
    expect(truth.some((e) => e.event === "reboot")).toBe(true);
    // The rebooted arm has never heard of the action, but that proves nothing: it moved.
    expect(row.state).toBe("unknown");
    expect(truth.filter((e) => e.event === "voided")).toHaveLength(0);
  });
});
