import { afterEach, describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import type { MotionTiming } from "../../src/motion/MotionTiming.js";
import { MotionRateLimit } from "../../src/safety/MotionRateLimit.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { FakeArm } from "../support/FakeArm.js";
import { testConfig } from "../support/testConfig.js";

/** limits.max_tool_speed_mps and limits.motions_per_minute, through the executor: what is sent, what is refused, what the ledger keeps. */
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function rig(
  limits: Partial<ArmConfig["limits"]>,
  timing: MotionTiming | undefined,
  now?: () => number,
): Promise<{ arm: FakeArm; ledger: IntentLedger; executor: Executor }> {
  const base = testConfig();
  const config: ArmConfig = { ...base, limits: { ...base.limits, ...limits } };
  const arm = new FakeArm(config, { motionMs: () => 20, ...(timing ? { timing } : {}) });
  await arm.open();
  const ledger = IntentLedger.open(":memory:");
  const executor = composeExecutor({
    config,
    registry: createDefaultTools(config),
    transport: arm,
    ledger,
    ...(now ? { now } : {}),
  });
  cleanup = async () => {
    executor.close();
    await arm.close();
    ledger.close();
  };
  return { arm, ledger, executor };
}

describe("limits.max_tool_speed_mps through the executor", () => {
  it("a fast motion is sent slower, once, and the ledger keeps both speeds", async () => {
    const { arm, ledger, executor } = await rig({ maxToolSpeedMps: 0.25 }, { kind: "shared_duration" });
    const [r] = await executor.execute([
      { id: "fast", name: "move_joints", args: { positions: { shoulder_pan: 1.2 }, speed: 1 } },
    ]);
    expect(r!.result.status).toBe("done");
    expect(arm.sent).toHaveLength(1);
    expect(arm.sent[0]!.speed).toBeLessThan(0.5);
    const row = ledger.findByCallId("fast")!;
    expect(row.command).toMatchObject({ speed: arm.sent[0]!.speed, requested_speed: 1 });
  });

  it("a transport that does not say how it times motions cannot be held to the limit: refused, coded, nothing recorded or sent", async () => {
    const { arm, ledger, executor } = await rig({ maxToolSpeedMps: 0.25 }, undefined);
    const [r] = await executor.execute([
      { id: "blind", name: "move_joints", args: { positions: { shoulder_pan: 0.5 } } },
    ]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_TOOL_SPEED_LIMIT" });
    expect(arm.sent).toHaveLength(0);
    expect(ledger.findByCallId("blind")).toBeUndefined();
    // The gripper does not move the tool frame: it is never held back.
    const [g] = await executor.execute([{ id: "g", name: "set_gripper", args: { position: 0.4 } }]);
    expect(g!.result.status).toBe("done");
  });

  it("a motion that would have to be slowed past its timeout is refused instead of being sent to end unknown", async () => {
    // 1.2 rad of pan at ~0.1 m/s of tool takes over 8 s: more than move_joints' timeout plus observe.max_ms here.
    const { arm, executor } = await rig({ maxToolSpeedMps: 0.1 }, { kind: "shared_duration" });
    const [r] = await executor.execute([
      { id: "crawl", name: "move_joints", args: { positions: { shoulder_pan: 1.2 } } },
    ]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_TOOL_SPEED_LIMIT" });
    if (r!.result.status === "rejected") expect(r!.result.issues[0]!.message).toMatch(/slowed to speed .* would take/);
    expect(arm.sent).toHaveLength(0);
  });
});

describe("limits.motions_per_minute through the executor", () => {
  it("one bucket for the bridge: past it a motion is refused with the time to wait, nothing sent; refused motions cost nothing; it refills", async () => {
    let t = 1_000_000;
    const { arm, ledger, executor } = await rig({ motionsPerMinute: 2 }, undefined, () => t);
    const [a] = await executor.execute([{ id: "a", name: "move_joints", args: { positions: { wrist_3: 0.1 } } }]);
    // Refused by the envelope (through the floor): takes no token.
    const [bad] = await executor.execute([
      { id: "bad", name: "move_joints", args: { positions: { shoulder_lift: 1.6, elbow: 0 } } },
    ]);
    const [b] = await executor.execute([{ id: "b", name: "set_gripper", args: { position: 0.5 } }]);
    const [c] = await executor.execute([{ id: "c", name: "move_joints", args: { positions: { wrist_3: 0.2 } } }]);
    expect([a!.result.status, bad!.result.status, b!.result.status]).toEqual(["done", "rejected", "done"]);
    expect(c!.result).toMatchObject({
      status: "rejected",
      error_code: "ARMB_ERR_MOTION_RATE_LIMITED",
      retry_after_ms: 30_000,
    });
    expect(arm.sent).toHaveLength(2);
    expect(ledger.findByCallId("c")).toBeUndefined();
    t += 30_000;
    const [d] = await executor.execute([{ id: "d", name: "move_joints", args: { positions: { wrist_3: 0.2 } } }]);
    expect(d!.result.status).toBe("done");
    expect(executor.motionRate?.tokens(t)).toBeCloseTo(0, 6);
  });
});

describe("MotionRateLimit", () => {
  it("holds at most perMinute tokens, refills perMinute/60 a second, and says how long to wait", () => {
    const bucket = new MotionRateLimit(6, 0);
    for (let i = 0; i < 6; i++) expect(bucket.take(0).ok).toBe(true);
    expect(bucket.take(0)).toEqual({ ok: false, retryAfterMs: 10_000 });
    expect(bucket.take(4_000)).toEqual({ ok: false, retryAfterMs: 6_000 });
    expect(bucket.take(10_000).ok).toBe(true);
    // Never more than full, and a clock stepping back neither refills nor drains.
    expect(bucket.tokens(10_000_000)).toBe(6);
    expect(bucket.tokens(5)).toBe(6);
  });
});
