import { afterEach, describe, expect, it } from "vitest";
import type { CallResult } from "../../src/executor/calls/CallResult.js";
import { createHarness, type Harness } from "../support/executorHarness.js";
import type { FakeBehaviour } from "../support/FakeArm.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function only(results: { result: CallResult }[]): CallResult {
  expect(results).toHaveLength(1);
  return results[0]!.result;
}

describe("executor: one test per result status", () => {
  it("done by completion: the arm reports reached within the budget", async () => {
    h = await createHarness({ arm: { motionMs: () => 40 } });
    const r = only(await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 1.2 } } }]));
    expect(r.status).toBe("done");
    expect(r).toMatchObject({ settled_by: "completion", timed_out: false });
    expect(r.status === "done" && r.action_id).toMatch(/^act_/);
    expect(h.ledger.findByCallId("c1")?.state).toBe("done");
    expect(h.arm.effects).toHaveLength(1);
  });

  it("done by observation: the wait times out, the motion goes on, and is observed reaching its target — never re-sent", async () => {
    h = await createHarness({ arm: { motionMs: () => 450 } });
    const r = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 1.2 } } }], {
        deadlineMs: 150,
      }),
    );
    expect(r.status).toBe("done");
    expect(r).toMatchObject({ settled_by: "observation", timed_out: true });
    expect(r.message).toMatch(/timed out/);
    // The motion was not cut short by the timeout: it ran to its end, once.
    expect(h.arm.sent).toHaveLength(1);
    expect(h.arm.effects).toHaveLength(1);
    expect(h.arm.effects[0]!.outcome).toBe("reached");
    expect(h.arm.effects[0]!.endedAt! - h.arm.effects[0]!.startedAt).toBeGreaterThanOrEqual(440);
    expect(h.ledger.findByCallId("c1")).toMatchObject({ state: "done", settledBy: "observation", timedOut: true });
  });

  it("failed by completion: the arm refuses the command (positive evidence nothing moved)", async () => {
    h = await createHarness({ arm: { behaviour: () => "refuse" } });
    const r = only(await h.executor.execute([{ id: "c1", name: "set_gripper", args: { position: 0.2 } }]));
    expect(r.status).toBe("failed");
    expect(r).toMatchObject({ settled_by: "completion", timed_out: false });
    expect(r.message).toMatch(/re-running is allowed/);
    expect(h.ledger.findByCallId("c1")?.state).toBe("failed");
  });

  it("failed by observation: a command lost on the wire is voided at the arm, so it can never run", async () => {
    h = await createHarness({ arm: { behaviour: () => "drop" } });
    const r = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { wrist_1: 0.3 } } }], {
        deadlineMs: 150,
      }),
    );
    expect(r.status).toBe("failed");
    expect(r).toMatchObject({ settled_by: "observation", timed_out: true });
    expect(h.arm.effects).toHaveLength(0);
    expect(
      await h.arm.queryAction(r.status === "failed" ? r.action_id! : "", {
        voidIfUnknown: false,
        signal: new AbortController().signal,
      }),
    ).toMatchObject({ state: "voided" });
  });

  it("failed: the arm faults before moving", async () => {
    h = await createHarness({ arm: { behaviour: () => "fault_no_motion" } });
    const r = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { wrist_2: 0.3 } } }]),
    );
    expect(r.status).toBe("failed");
  });

  it("unknown: the arm forgets the action and its status goes quiet — the message forbids re-running, the joints are quarantined", async () => {
    h = await createHarness({ arm: { behaviour: () => "forget", motionMs: () => 400 } });
    const r = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.5 } } }], {
        deadlineMs: 150,
      }),
    );
    expect(r.status).toBe("unknown");
    expect(r).toMatchObject({ settled_by: "none", timed_out: true });
    expect(r.message).toMatch(/Do NOT re-run/);
    expect(r.status === "unknown" && r.resources).toEqual(["joint:elbow"]);
    expect([...h.executor.quarantine.byResource().keys()]).toEqual(["joint:elbow"]);
  });

  it("unknown: a motion that stalls after moving is short of its target — an operator must look", async () => {
    h = await createHarness({ arm: { behaviour: () => "stall_midway", motionMs: () => 60 } });
    const r = only(await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.2 } } }]));
    expect(r.status).toBe("unknown");
    expect(r.message).toMatch(/stalled after moving/);
  });

  it("rejected: invalid arguments are named, nothing is recorded or sent", async () => {
    h = await createHarness();
    const r = only(await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 99 } } }]));
    expect(r.status).toBe("rejected");
    expect(r.status === "rejected" && r.error_code).toBe("ARMB_ERR_ARGS_INVALID");
    expect(r.status === "rejected" && r.issues[0]?.path).toBe("positions.elbow");
    expect(h.arm.sent).toHaveLength(0);
    expect(h.ledger.list()).toHaveLength(0);
  });

  it("skipped: a call whose deadline runs out while queued behind a shared joint sends nothing", async () => {
    h = await createHarness({ arm: { motionMs: () => 600 } });
    const out = await h.executor.execute(
      [
        { id: "first", name: "move_joints", args: { positions: { elbow: 0.4 } } },
        { id: "second", name: "move_joints", args: { positions: { elbow: 0.9 } } },
      ],
      { deadlineMs: 250 },
    );
    expect(out.map((o) => o.id)).toEqual(["first", "second"]);
    expect(out[1]!.result.status).toBe("skipped");
    expect(out[1]!.result.message).toMatch(/Nothing was sent/);
    expect(h.arm.sent.map((c) => c.targets)).toEqual([{ elbow: 0.4 }]);
    expect(h.ledger.findByCallId("second")).toBeUndefined();
  });

  it("blocked: a quarantined joint refuses new motion, naming the unknown action; an operator's confirmation lifts it", async () => {
    let behaviour: FakeBehaviour = "forget";
    h = await createHarness({ arm: { behaviour: () => behaviour, motionMs: () => 400 } });
    const first = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.5, wrist_1: 0.1 } } }], {
        deadlineMs: 150,
      }),
    );
    expect(first.status).toBe("unknown");
    const unknownId = first.status === "unknown" ? first.action_id! : "";

    const blocked = only(
      await h.executor.execute([{ id: "c2", name: "move_joints", args: { positions: { elbow: 0.7 } } }]),
    );
    expect(blocked).toMatchObject({
      status: "blocked",
      blocked_by: [unknownId],
      resources: ["joint:elbow"],
      error_code: "ARMB_ERR_QUARANTINED",
    });
    expect(h.arm.sent).toHaveLength(1);

    // Joints outside the quarantine are not affected by it.
    behaviour = "reach";
    const free = only(
      await h.executor.execute([{ id: "c3", name: "move_joints", args: { positions: { shoulder_pan: 0.2 } } }]),
    );
    expect(free.status).toBe("done");
  });

  it("quarantine survives a restart (rebuilt from the ledger) and an operator confirmation lifts it", async () => {
    const dir = await import("node:fs").then((fs) =>
      fs.mkdtempSync(`${globalThis.process.env.TMPDIR ?? "/tmp"}/armbridge-q-`),
    );
    const ledgerPath = `${dir}/ledger.sqlite`;
    h = await createHarness({ arm: { behaviour: () => "forget", motionMs: () => 400 }, ledgerPath });
    const first = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.5 } } }], {
        deadlineMs: 150,
      }),
    );
    expect(first.status).toBe("unknown");
    const unknownId = first.status === "unknown" ? first.action_id! : "";
    await h.close();

    h = await createHarness({ arm: { motionMs: () => 20 }, ledgerPath });
    const blocked = only(
      await h.executor.execute([{ id: "c2", name: "move_joints", args: { positions: { elbow: 0.7 } } }]),
    );
    expect(blocked).toMatchObject({ status: "blocked", blocked_by: [unknownId] });
    const free = only(
      await h.executor.execute([{ id: "c3", name: "move_joints", args: { positions: { wrist_3: 0.2 } } }]),
    );
    expect(free.status).toBe("done");

    expect(() => h!.executor.confirm(unknownId, { outcome: "done", operator: "  " })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_OPERATOR_REQUIRED" }),
    );
    const row = h.executor.confirm(unknownId, { outcome: "not_done", operator: "ana", note: "arm was at rest" });
    expect(row).toMatchObject({ state: "confirmed_not_done", operator: "ana", settledBy: "operator" });
    expect(() => h!.executor.confirm(unknownId, { outcome: "done", operator: "bob" })).toThrow(
      expect.objectContaining({ code: "ARMB_ERR_ACTION_NOT_UNKNOWN" }),
    );
    // The original call id now replays the operator's word — not a claim that nothing moved.
    const replay = only(
      await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.5 } } }]),
    );
    expect(replay).toMatchObject({ status: "failed", settled_by: "operator", replayed: true });
    expect(replay.message).toMatch(/An operator \(ana\) confirmed/);
    expect(replay.message).not.toMatch(/nothing moved/);
    const after = only(
      await h.executor.execute([{ id: "c4", name: "move_joints", args: { positions: { elbow: 0.7 } } }]),
    );
    expect(after.status).toBe("done");
  });
});

describe("executor: idempotency by call id", () => {
  it("the same id with the same args returns the recorded result and executes nothing again", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    const a = only(
      await h.executor.execute([
        { id: "same", name: "move_joints", args: { positions: { elbow: 0.3, wrist_1: 0.2 } } },
      ]),
    );
    // Same arguments, different key order: still the same call.
    const b = only(
      await h.executor.execute([
        { id: "same", name: "move_joints", args: { positions: { wrist_1: 0.2, elbow: 0.3 } } },
      ]),
    );
    expect(b).toMatchObject({ status: "done", replayed: true });
    expect(b.status === "done" && b.action_id).toBe(a.status === "done" && a.action_id);
    expect(h.arm.sent).toHaveLength(1);
  });

  it("the same id with different args is rejected with a clear code", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    await h.executor.execute([{ id: "same", name: "move_joints", args: { positions: { elbow: 0.3 } } }]);
    const r = only(
      await h.executor.execute([{ id: "same", name: "move_joints", args: { positions: { elbow: 0.4 } } }]),
    );
    expect(r).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_CALL_ID_REUSED" });
    expect(h.arm.sent).toHaveLength(1);
  });

  it("the same id twice at once (two requests racing) runs once; both get the one result", async () => {
    h = await createHarness({ arm: { motionMs: () => 60 } });
    const call = { id: "race", name: "move_joints", args: { positions: { elbow: 0.3 } } };
    const [a, b] = await Promise.all([h.executor.execute([call]), h.executor.execute([call])]);
    expect(a[0]!.result.status).toBe("done");
    expect(b[0]!.result.status).toBe("done");
    expect(h.arm.sent).toHaveLength(1);
  });

  it("a duplicate id inside one batch is rejected, the first runs", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    const out = await h.executor.execute([
      { id: "d", name: "move_joints", args: { positions: { elbow: 0.3 } } },
      { id: "d", name: "move_joints", args: { positions: { elbow: 0.3 } } },
    ]);
    expect(out[0]!.result.status).toBe("done");
    expect(out[1]!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH" });
    expect(h.arm.sent).toHaveLength(1);
  });
});

describe("executor: locks", () => {
  it("calls sharing a joint run one after another; disjoint calls run together", async () => {
    h = await createHarness({ arm: { motionMs: () => 80 } });
    const out = await h.executor.execute([
      { id: "a", name: "move_joints", args: { positions: { elbow: 0.3 } } },
      { id: "b", name: "move_joints", args: { positions: { elbow: 0.6, wrist_1: 0.1 } } },
      { id: "c", name: "move_joints", args: { positions: { shoulder_pan: 0.2 } } },
      { id: "d", name: "set_gripper", args: { position: 0.1 } },
    ]);
    expect(out.map((o) => o.result.status)).toEqual(["done", "done", "done", "done"]);
    expect(h.arm.overlaps()).toBe(0);
    const byTarget = (axis: string) =>
      h!.arm.effects.find((e) => e.axes.includes(axis) && e.axes.length === (axis === "wrist_1" ? 2 : 1))!;
    const a = h.arm.effects[0]!;
    const b = byTarget("wrist_1");
    const c = byTarget("shoulder_pan");
    const d = byTarget("gripper");
    // b waited for a (shared elbow); c and d ran alongside a.
    expect(b.startedAt).toBeGreaterThanOrEqual(a.endedAt!);
    expect(c.startedAt).toBeLessThan(a.endedAt!);
    expect(d.startedAt).toBeLessThan(a.endedAt!);
  });

  it("stop bypasses the queue and a quarantine, halting a motion in progress", async () => {
    h = await createHarness({ arm: { motionMs: () => 800 } });
    const moving = h.executor.execute([{ id: "m", name: "move_joints", args: { positions: { elbow: 2.0 } } }]);
    await sleep(200);
    const stop = only(await h.executor.execute([{ id: "s", name: "stop", args: {} }]));
    expect(stop.status).toBe("done");
    expect(stop.status === "done" && stop.output?.halted).toBe(true);
    const m = only(await moving);
    // Interrupted after moving, by a halt the arm confirmed: stopped where it is, nobody is asked.
    expect(m.status).toBe("stopped");
    expect(h.arm.effects[0]!.outcome).toBe("stopped");
  });
});

describe("executor: read tools", () => {
  it("get_arm_state reports the pose, what moves and pending unknowns; get_action_status reads the ledger", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    const moved = only(
      await h.executor.execute([{ id: "m", name: "move_joints", args: { positions: { elbow: 0.8 } } }]),
    );
    const [state, status] = await h.executor.execute([
      { id: "s", name: "get_arm_state", args: {} },
      { id: "q", name: "get_action_status", args: { action_id: moved.status === "done" ? moved.action_id : "" } },
    ]);
    expect(state!.result.status).toBe("done");
    const out = state!.result.status === "done" ? state!.result.output! : {};
    expect(out.stale).toBe(false);
    expect((out.pose as Record<string, number>).elbow).toBeCloseTo(0.8, 2);
    expect(out.pending_unknowns).toEqual([]);
    expect(status!.result.status === "done" && status!.result.output).toMatchObject({
      found: true,
      state: "done",
      tool: "move_joints",
    });
  });

  it("get_arm_state labels an old pose stale", async () => {
    h = await createHarness();
    h.arm.freezeStatus();
    await sleep(h.config.staleAfterMs + 50);
    const r = only(await h.executor.execute([{ id: "s", name: "get_arm_state", args: {} }]));
    expect(r.status === "done" && r.output?.stale).toBe(true);
    expect(r.message).toMatch(/STALE/);
  });
});
