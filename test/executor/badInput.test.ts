import { actuatorsOf } from "../../src/config/actuators.js";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../support/executorHarness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const hugeObject = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`j${i}`, 0]));

describe("bad input is rejected with the reason, and nothing is recorded or sent", () => {
  it.each([
    ["a string angle", { positions: { elbow: "1.0" } }, "positions.elbow"],
    ["NaN", { positions: { elbow: Number.NaN } }, "positions.elbow"],
    ["Infinity", { positions: { elbow: Number.POSITIVE_INFINITY } }, "positions.elbow"],
    ["an angle past the joint limit", { positions: { elbow: 3.5 } }, "positions.elbow"],
    ["an unknown joint", { positions: { no_such_joint: 0.1 } }, "positions"],
    ["no joint at all", { positions: {} }, "positions"],
    ["positions as an array", { positions: [0.1, 0.2] }, "positions"],
    ["a huge array", { positions: Array.from({ length: 100_000 }, () => 0) }, "positions"],
    ["a huge object", { positions: hugeObject }, "positions"],
    ["a __proto__ key", JSON.parse('{"positions":{"elbow":0.1,"__proto__":{"polluted":1}}}'), "positions"],
    ["speed 0", { positions: { elbow: 0.1 }, speed: 0 }, "speed"],
    ["speed above 1", { positions: { elbow: 0.1 }, speed: 1.5 }, "speed"],
    ["an extra field", { positions: { elbow: 0.1 }, relative: true }, "(args)"],
    ["args that are not an object", "move elbow", "(args)"],
  ])("move_joints with %s", async (_what, args, path) => {
    h = await createHarness();
    const [r] = await h.executor.execute([{ id: "bad", name: "move_joints", args }]);
    expect(r!.result.status).toBe("rejected");
    if (r!.result.status !== "rejected") return;
    expect(r!.result.error_code).toBe("ARMB_ERR_ARGS_INVALID");
    expect(r!.result.issues.length).toBeGreaterThan(0);
    expect(r!.result.issues.length).toBeLessThanOrEqual(20);
    expect(r!.result.issues.map((i) => i.path)).toContain(path);
    expect(r!.result.message).toMatch(/rejected before anything was sent/);
    expect(h.arm.sent).toHaveLength(0);
    expect(h.ledger.list()).toHaveLength(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("an unknown tool is rejected naming the known ones", async () => {
    h = await createHarness();
    const [r] = await h.executor.execute([{ id: "x", name: "move_everything", args: {} }]);
    expect(r!.result).toMatchObject({ status: "rejected", error_code: "ARMB_ERR_TOOL_UNKNOWN" });
    expect(r!.result.message).toMatch(/move_joints/);
  });

  it("an unknown named pose and an out-of-range gripper are rejected", async () => {
    h = await createHarness();
    const out = await h.executor.execute([
      { id: "p", name: "move_to_named_pose", args: { pose: "dance" } },
      { id: "g", name: "set_gripper", args: { position: 1.5 } },
    ]);
    expect(out.map((o) => o.result.status)).toEqual(["rejected", "rejected"]);
    expect(h.arm.sent).toHaveLength(0);
  });

  it("a stop is never refused for its arguments: an unknown joint halts every axis, and the result says what was wrong", async () => {
    h = await createHarness();
    const [unclear, extra] = await h.executor.execute([
      { id: "s", name: "stop", args: { joints: ["elbow", "nope"] } },
      { id: "t", name: "stop", args: { joints: ["elbow"], why: "hand in the cell" } },
    ]);
    expect(unclear!.result).toMatchObject({
      status: "done",
      error_code: "ARMB_ERR_ARGS_INVALID",
      issues: [expect.objectContaining({ path: expect.stringContaining("joints") })],
    });
    expect(unclear!.result).toMatchObject({ output: { axes: actuatorsOf(h.config).map((a) => a.name) } });
    // Understood joints are acted on as named when only something else was wrong.
    expect(extra!.result).toMatchObject({
      status: "done",
      error_code: "ARMB_ERR_ARGS_INVALID",
      output: { axes: ["elbow"] },
    });
    expect(h.executor.halts.engaged).toBeDefined();
    expect(h.arm.sent).toHaveLength(0);
  });

  it("a bad call does not disturb good calls in the same batch, nor what the ledger already holds", async () => {
    h = await createHarness({ arm: { motionMs: () => 20 } });
    await h.executor.execute([{ id: "before", name: "move_joints", args: { positions: { elbow: 0.2 } } }]);
    const out = await h.executor.execute([
      { id: "good", name: "move_joints", args: { positions: { wrist_1: 0.2 } } },
      { id: "bad", name: "move_joints", args: { positions: { wrist_1: "x" } } },
    ]);
    expect(out.map((o) => o.result.status)).toEqual(["done", "rejected"]);
    expect(
      h.ledger
        .list()
        .map((r) => r.callId)
        .sort(),
    ).toEqual(["before", "good"]);
  });
});
