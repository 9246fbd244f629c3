import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../firmware-sim/startSimulator.js";
import { Bridge } from "../../src/bridge/Bridge.js";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import { readEffects } from "../firmware-sim/readEffects.js";

/**
 * An `unknown` motion may still be moving the arm: until it is settled or
 * confirmed it counts as in flight for the envelope check of every new
 * motion — across a restart of the bridge too, since the arm did not restart.
 * The default arm on firmware-sim, its shoulder_lift stalling half-way on cue;
 * judged by the simulator's effects log.
 */
let dir: string | undefined;
let sim: RunningSimulator | undefined;
let bridge: Bridge | undefined;
afterEach(async () => {
  await bridge?.close();
  await sim?.close();
  bridge = undefined;
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function call(b: Bridge, id: string, positions: Record<string, number>): Promise<CallResult> {
  const [r] = await b.executor.execute([{ id, name: "move_joints", args: { positions } }], { deadlineMs: 30_000 });
  return r!.result;
}

/** The simulator takes one host at a time, like a UART, and notices the last one left a moment after it closed. */
async function restart(link: string, dataDir: string): Promise<Bridge> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await Bridge.start({ transport: { kind: "serial", link }, dataDir });
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe("the envelope's motions in flight are rebuilt from the ledger", () => {
  it("after a restart, the stalled unknown motion still refuses a motion whose path could meet it outside the envelope; nothing is sent", async () => {
    dir = mkdtempSync(join(tmpdir(), "armb-inflight-restart-"));
    const effectsLog = join(dir, "effects.jsonl");
    const dataDir = join(dir, "data");
    sim = await startSimulator({
      link: "tcp",
      port: 0,
      effectsLog,
      stallJoints: ["shoulder_lift"],
      logger: pino({ level: "silent" }),
    });
    bridge = await Bridge.start({ transport: { kind: "serial", link: sim.link }, dataDir });

    expect((await call(bridge, "c1", { elbow: -0.899, wrist_1: 1.184 })).status).toBe("done");
    const stalled = await call(bridge, "c2", { shoulder_lift: 0.5 });
    expect(stalled.status).toBe("unknown");
    const before = await call(bridge, "c3", { elbow: 0.4 });
    expect(before).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });

    await bridge.close();
    bridge = await restart(sim.link, dataDir);
    const starts = readEffects(effectsLog).filter((e) => e.event === "motion_start").length;
    const after = await call(bridge, "c4", { elbow: 0.4 });
    expect(after).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(JSON.stringify(after)).toContain("in flight");
    // Ground truth: nothing reached the arm for it.
    expect(readEffects(effectsLog).filter((e) => e.event === "motion_start")).toHaveLength(starts);
    expect(bridge.ledger.findByCallId("c4")).toBeUndefined();

    // Once an operator has confirmed the unknown one, it no longer counts, and the same motion runs.
    const stalledId = "action_id" in stalled ? stalled.action_id : "";
    bridge.executor.confirm(stalledId, { outcome: "partial", operator: "tester" });
    expect((await call(bridge, "c5", { elbow: 0.4 })).status).toBe("done");
  }, 60_000);
});
