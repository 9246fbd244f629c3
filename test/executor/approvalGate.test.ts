import { afterEach, describe, expect, it } from "vitest";
import type { Executor } from "../../src/executor/Executor.js";
import { composeExecutor } from "../../src/bridge/composeExecutor.js";
import type { ExecutorEvent } from "../../src/executor/ExecutorEvent.js";
import { IntentLedger } from "../../src/ledger/IntentLedger.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import { testConfig } from "../support/testConfig.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function gated(approval: Record<string, unknown>, approval_timeout_s = 30): Promise<Harness> {
  h = await createHarness({ config: testConfig({ approval, approval_timeout_s }) });
  return h;
}

/** Resolves once the desk has `n` pending requests. */
async function pending(x: Harness, n: number, ms = 5000): Promise<ReturnType<Executor["approvals"]["pending"]>> {
  const deadline = Date.now() + ms;
  while (x.executor.approvals.pendingCount !== n) {
    if (Date.now() > deadline)
      throw new Error(`expected ${n} pending approvals, have ${x.executor.approvals.pendingCount}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return x.executor.approvals.pending();
}

const move = (id: string, positions: Record<string, number>) => ({ id, name: "move_joints", args: { positions } });

describe("approval gate (config approval): nothing sent or recorded until an operator approves", () => {
  it("approve → the motion runs exactly once, through the usual path, after the request named its targets", async () => {
    const x = await gated({ move_joints: "always" });
    const events: ExecutorEvent[] = [];
    x.executor.onEvent((e) => events.push(e));
    const run = x.executor.execute([move("a1", { wrist_1: 0.4 })], { deadlineMs: 10_000 });
    const [req] = await pending(x, 1);
    expect(req).toMatchObject({
      call_id: "a1",
      tool: "move_joints",
      resources: ["joint:wrist_1"],
      targets: { wrist_1: 0.4 },
      why: "approval: always",
    });
    expect(req!.expires_at - req!.requested_at).toBe(30_000);
    // Waiting: nothing sent, nothing in the ledger.
    expect(x.arm.sent).toHaveLength(0);
    expect(x.ledger.list()).toHaveLength(0);
    const decided = x.executor.approvals.approve(req!.id, { operator: " ana ", note: "clear" });
    expect(decided).toMatchObject({ id: req!.id, decision: "approved", operator: "ana", note: "clear" });
    const [r] = await run;
    expect(r!.result.status).toBe("done");
    expect(x.arm.effects.map((e) => e.axes)).toEqual([["wrist_1"]]);
    expect(x.arm.sent).toHaveLength(1);
    // Who approved is recorded with the intent, not only in the log.
    expect(x.ledger.list()[0]!.approval).toEqual({
      approvalId: req!.id,
      operator: "ana",
      at: decided.decided_at,
      note: "clear",
    });
    expect(events.map((e) => e.type)).toEqual([
      "queued",
      "approval_requested",
      "approval_resolved",
      "started",
      "settled",
    ]);
    expect(() => x.executor.approvals.approve(req!.id, { operator: "bob" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_APPROVAL_DECIDED" }),
    );
    expect(() => x.executor.approvals.decline("apr_nope", { operator: "bob" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_APPROVAL_NOT_FOUND" }),
    );
  });

  it("decline → rejected with who and why, nothing sent, nothing recorded", async () => {
    const x = await gated({ move_joints: "always" });
    const run = x.executor.execute([move("d1", { wrist_1: 0.4 })]);
    const [req] = await pending(x, 1);
    expect(() => x.executor.approvals.decline(req!.id, { operator: "  " })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_APPROVAL_OPERATOR_REQUIRED" }),
    );
    x.executor.approvals.decline(req!.id, { operator: "ana", note: "too close to the fixture" });
    const [r] = await run;
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_DECLINED" });
    expect(r!.result.message).toMatch(
      /^An operator \(ana\) declined this motion: too close to the fixture\. Nothing was sent/,
    );
    expect(x.arm.effects).toEqual([]);
    expect(x.arm.sent).toEqual([]);
    expect(x.ledger.list()).toEqual([]);
  });

  it("expiry → rejected after approval_timeout_s, nothing sent", async () => {
    const x = await gated({ move_joints: "always" }, 0.3);
    const t0 = Date.now();
    const [r] = await x.executor.execute([move("e1", { wrist_1: 0.4 })], { deadlineMs: 60_000 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_EXPIRED" });
    expect(r!.result.message).toMatch(/^No operator approved within 0\.3 s; nothing was sent/);
    expect(x.arm.effects).toEqual([]);
    expect(x.ledger.list()).toEqual([]);
    expect(x.executor.approvals.pendingCount).toBe(0);
  });

  it("a second call on the same joint queues behind the waiting one (its locks are held); a disjoint call runs meanwhile", async () => {
    const x = await gated({ move_joints: { joints: ["wrist_1"] } });
    const first = x.executor.execute([move("q1", { wrist_1: 0.4 })]);
    const [req] = await pending(x, 1);
    const second = x.executor.execute([move("q2", { wrist_1: -0.2 })]);
    // Disjoint and not gated (the rule names wrist_1 only): runs to the end while q1 waits.
    const [disjoint] = await x.executor.execute([move("q3", { elbow: 0.7 })]);
    expect(disjoint!.result.status).toBe("done");
    expect(x.arm.effects.map((e) => e.axes)).toEqual([["elbow"]]);
    // q2 waits for wrist_1's lock, not for an approval of its own yet.
    expect(x.executor.approvals.pending().map((p) => p.call_id)).toEqual(["q1"]);
    x.executor.approvals.approve(req!.id, { operator: "ana" });
    expect((await first)[0]!.result.status).toBe("done");
    const [req2] = await pending(x, 1);
    expect(req2!.call_id).toBe("q2");
    x.executor.approvals.approve(req2!.id, { operator: "ana" });
    expect((await second)[0]!.result.status).toBe("done");
    expect(x.arm.effects.map((e) => e.axes)).toEqual([["elbow"], ["wrist_1"], ["wrist_1"]]);
    expect(x.arm.overlaps()).toBe(0);
  });

  it("stop is never gated: it runs at once while a gated call waits (and, as every halt, declines it), and a rule on stop is refused", async () => {
    const x = await gated({ move_joints: "always" });
    const waiting = x.executor.execute([move("s1", { wrist_1: 0.4 })]);
    const [req] = await pending(x, 1);
    const [stop] = await x.executor.execute([{ id: "s2", name: "stop", args: {} }]);
    expect(stop!.result.status).toBe("done");
    expect(x.executor.approvals.pendingCount).toBe(0);
    const halt = x.executor.halts.engaged!;
    expect(x.executor.approvals.get(req!.id)).toMatchObject({ decision: "declined", halt_id: halt.haltId });
    const [declined] = await waiting;
    expect(declined!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_DECLINED" });
    expect(declined!.result.message).toContain(halt.haltId);
    // Released, the old request cannot be approved into a motion.
    x.executor.releaseHalt({ operator: "ana" });
    expect(() => x.executor.approvals.approve(req!.id, { operator: "ana" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_APPROVAL_DECIDED" }),
    );
    expect(x.arm.sent).toHaveLength(0);
    expect(() => testConfig({ approval: { stop: "always" } })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID" }),
    );
  });

  it("the approval wait counts against neither the run deadline nor the tool timeout", async () => {
    const x = await gated({ move_joints: "always" });
    const run = x.executor.execute([move("t1", { wrist_1: 0.4 })], { deadlineMs: 200 });
    const [req] = await pending(x, 1);
    await new Promise((r) => setTimeout(r, 400));
    x.executor.approvals.approve(req!.id, { operator: "ana" });
    const [r] = await run;
    expect(r!.result.status).toBe("done");
    expect(x.arm.effects).toHaveLength(1);
  });

  it("Cartesian tools are gated on their IK-derived targets, which the request carries", async () => {
    const x = await gated({ move_to_point: "always" });
    const state = await x.executor.execute([{ id: "p0", name: "get_arm_state", args: {} }]);
    const ee = (state[0]!.result as { output?: { end_effector?: { position: { x: number; y: number; z: number } } } })
      .output?.end_effector?.position;
    expect(ee).toBeDefined();
    const run = x.executor.execute([
      { id: "p1", name: "move_to_point", args: { x: ee!.x, y: ee!.y, z: ee!.z - 0.02 } },
    ]);
    const [req] = await pending(x, 1);
    expect(Object.keys(req!.targets).length).toBeGreaterThanOrEqual(3);
    for (const v of Object.values(req!.targets)) expect(Number.isFinite(v)).toBe(true);
    x.executor.approvals.approve(req!.id, { operator: "ana" });
    const [r] = await run;
    expect(r!.result.status).toBe("done");
    expect(x.arm.sent[0]!.targets).toEqual(req!.targets);
  });

  it("a shutdown while a call waits leaves nothing to reconcile: the call is withdrawn, the ledger empty", async () => {
    const x = await gated({ move_joints: "always" });
    const run = x.executor.execute([move("c1", { wrist_1: 0.4 })]);
    await pending(x, 1);
    x.executor.close();
    const [r] = await run;
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_APPROVAL_WITHDRAWN" });
    expect(x.ledger.list()).toEqual([]);
    const next = composeExecutor({
      config: x.config,
      registry: createDefaultTools(x.config),
      transport: x.arm,
      ledger: x.ledger,
    });
    try {
      expect(await next.reconcile()).toEqual([]);
      expect(next.approvals.pendingCount).toBe(0);
    } finally {
      next.close();
    }
    expect(x.arm.effects).toEqual([]);
  });

  it("tells the model in the tool's description which calls wait for an operator", () => {
    const described = (approval: Record<string, unknown>) =>
      Object.fromEntries(
        createDefaultTools(testConfig({ approval, approval_timeout_s: 90 }))
          .declarations()
          .map((d) => [d.name, d.description]),
      );
    const gatedTools = described({ move_joints: { joints: ["wrist_1"] }, set_gripper: "always" });
    expect(gatedTools.move_joints).toMatch(
      /A call that moves wrist_1 waits for an operator at the arm to approve it before anything moves \(up to 90 s\)/,
    );
    expect(gatedTools.set_gripper).toMatch(/Every call waits for an operator/);
    expect(gatedTools.move_to_named_pose).not.toMatch(/operator at the arm/);
    expect(gatedTools.stop).not.toMatch(/operator at the arm/);
    expect(described({}).move_joints).not.toMatch(/operator at the arm/);
  });

  it("refuses an approval rule for a tool that does not exist or sends no motion", () => {
    const ledger = IntentLedger.open(":memory:");
    try {
      for (const approval of [{ move_joint: "always" }, { get_arm_state: "always" }]) {
        const config = testConfig({ approval });
        expect(() =>
          composeExecutor({
            config,
            registry: createDefaultTools(config),
            transport: {
              latestStatus: () => undefined,
              onStatus: () => () => undefined,
              linkState: () => ({ state: "connected", since: 0 }),
              onLinkState: () => () => undefined,
            } as never,
            ledger,
          }),
        ).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID" }));
      }
      // A contract tool this arm lacks (here: no gripper) is warned about, not refused: configs are written for many arms.
      const raw = testConfig({ approval: { set_gripper: "always" } });
      const noGripper = { ...raw, arm: { ...raw.arm, gripper: undefined } };
      const registry = createDefaultTools(noGripper);
      expect(registry.get("set_gripper")).toBeUndefined();
      const e = composeExecutor({
        config: noGripper,
        registry,
        transport: {
          latestStatus: () => undefined,
          onStatus: () => () => undefined,
          linkState: () => ({ state: "connected", since: 0 }),
          onLinkState: () => () => undefined,
        } as never,
        ledger,
      });
      e.close();
    } finally {
      ledger.close();
    }
  });
});
