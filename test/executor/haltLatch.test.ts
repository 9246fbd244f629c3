import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { startSimulator, type RunningSimulator } from "../../firmware-sim/startSimulator.js";
import { Bridge } from "../../src/bridge/Bridge.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { testConfig } from "../support/testConfig.js";

/**
 * The halt latch, judged by the simulator's effects log: a halt stops the arm,
 * latches the bridge (kept across a restart), every motion is refused until an
 * operator releases it by name, and a motion the halt cut short settles
 * `stopped` at the pose the arm reports — never unknown, never a question.
 */
let sim: RunningSimulator | undefined;
let bridge: Bridge | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bridge?.close();
  await sim?.close();
  bridge = undefined;
  sim = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(config: ArmConfig, dataDir: string, effects: MemoryEffects): Promise<Bridge> {
  sim ??= await startSimulator({ armConfig: config, link: "tcp", port: 0, seed: 1, effects });
  return Bridge.start({ config, transport: { kind: "serial", link: sim.link }, dataDir });
}

const motionStarts = (effects: MemoryEffects): number =>
  effects.events.filter((e) => e.event === "motion_start").length;

describe("the halt latch", () => {
  it("a halt during a motion: the motion settles stopped at the reported pose by the operator; nothing moves until released; kept across a restart", async () => {
    const config = testConfig();
    const effects = new MemoryEffects();
    const dataDir = mkdtempSync(join(tmpdir(), "armbridge-halt-"));
    dirs.push(dataDir);
    bridge = await start(config, dataDir, effects);
    // A slow wrist_3 motion: 3 rad at 30 % speed takes about 3 s.
    const moving = bridge.executor.execute([
      { id: "slow", name: "move_joints", args: { positions: { wrist_3: 3.0 }, speed: 0.3 } },
    ]);
    await new Promise((r) => setTimeout(r, 400));
    const { halt, result } = await bridge.executor.halt({ source: "console", operator: "ana" });
    expect(result.halted).toBe(true);
    expect(halt.confirmed).toBe(true);
    const [slow] = await moving;
    expect(slow!.result.status).toBe("stopped");
    if (slow!.result.status !== "stopped") return;
    expect(slow!.result.settled_by).toBe("operator");
    expect(slow!.result.message).toMatch(/the operator ana \(console\) halted the arm at wrist_3=/);
    expect(slow!.result.message).toMatch(/may not move until an operator releases the halt/);
    const stoppedAt = slow!.result.pose!.wrist_3!;
    expect(stoppedAt).toBeGreaterThan(0.05);
    expect(stoppedAt).toBeLessThan(2.9);
    const row = bridge.ledger.mustGet(slow!.result.action_id);
    expect(row.state).toBe("halted");
    // No question for the operator: nothing pending, nothing quarantined.
    expect(bridge.ledger.inState("unknown")).toHaveLength(0);
    expect(bridge.executor.quarantine.byResource().size).toBe(0);
    // Ground truth: the motion ended stopped, short of its target.
    const end = effects.events.find((e) => e.event === "motion_end" && e.action_id === row.actionId);
    expect(end?.event === "motion_end" ? end.outcome : undefined).toBe("stopped");

    // Latched: every motion refused, coded, nothing sent.
    const before = motionStarts(effects);
    const [refused] = await bridge.executor.execute([
      { id: "while-halted", name: "move_joints", args: { positions: { elbow: 0.5 } } },
    ]);
    expect(refused!.result).toMatchObject({
      status: "blocked",
      error_code: "ARMB_ERR_HALTED",
      blocked_by: [halt.haltId],
    });
    expect(bridge.ledger.findByCallId("while-halted")).toBeUndefined();

    // A restart keeps the latch (the arm restarted too: a new simulator, the same ground-truth log).
    await bridge.close();
    await sim!.close();
    sim = undefined;
    bridge = await start(config, dataDir, effects);
    expect(bridge.executor.halts.engaged?.haltId).toBe(halt.haltId);
    const [still] = await bridge.executor.execute([
      { id: "after-restart", name: "move_joints", args: { positions: { elbow: 0.5 } } },
    ]);
    expect(still!.result).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
    expect(motionStarts(effects)).toBe(before);

    // Released by name: motion is accepted again, and the release is recorded.
    expect(() => bridge!.executor.releaseHalt({ operator: "  " })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_RELEASE_OPERATOR_REQUIRED" }),
    );
    const released = bridge.executor.releaseHalt({ operator: "ana", note: "area clear" });
    expect(released.map((h) => [h.haltId, h.releasedBy])).toEqual([[halt.haltId, "ana"]]);
    expect(() => bridge!.executor.releaseHalt({ operator: "ana" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_NOT_HALTED" }),
    );
    const [moved] = await bridge.executor.execute([
      { id: "after-release", name: "move_joints", args: { positions: { elbow: 0.5 } } },
    ]);
    expect(moved!.result.status).toBe("done");
    expect(motionStarts(effects)).toBe(before + 1);
  });

  it("the stop tool latches too, and says `done` only when the arm confirmed the halt", async () => {
    const config = testConfig();
    const effects = new MemoryEffects();
    bridge = await start(config, ":memory:", effects);
    const [stop] = await bridge.executor.execute([{ id: "model-stop", name: "stop", args: {} }]);
    expect(stop!.result.status).toBe("done");
    expect(stop!.result.message).toMatch(/latched/);
    expect(bridge.executor.halts.engaged).toMatchObject({ source: "tool", callId: "model-stop", confirmed: true });
    const [refused] = await bridge.executor.execute([{ id: "m-1", name: "set_gripper", args: { position: 0.2 } }]);
    expect(refused!.result).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
  });

  it("a halt with the arm link down is not confirmed: the stop tool answers unknown, never done, and the bridge is latched all the same", async () => {
    const config = testConfig({ timeouts_ms: { stop: 600 } });
    const effects = new MemoryEffects();
    bridge = await start(config, ":memory:", effects);
    await sim!.close();
    sim = undefined;
    const [stop] = await bridge.executor.execute([{ id: "stop-no-link", name: "stop", args: {} }]);
    expect(stop!.result.status).toBe("unknown");
    expect(stop!.result.message).toMatch(/NOT confirmed by the arm/);
    expect(stop!.result.message).toMatch(/emergency stop/);
    expect(bridge.executor.halts.engaged).toMatchObject({ confirmed: false });
    const [refused] = await bridge.executor.execute([
      { id: "m-2", name: "move_joints", args: { positions: { elbow: 0.4 } } },
    ]);
    expect(refused!.result).toMatchObject({ status: "blocked", error_code: "ARMB_ERR_HALTED" });
  });
});
