import { describe, expect, it } from "vitest";
import type { CallResult } from "../../../src/executor/calls/CallResult.js";
import { createDefaultTools } from "../../../src/tools/defaultTools.js";
import type { FunctionResponse } from "../../../src/surfaces/toFunctionResponse.js";
import { missedOutcomesNote, UndeliveredMotions } from "../../../src/surfaces/gemini/UndeliveredMotions.js";
import { testConfig } from "../../support/testConfig.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, args, idAssigned: false });
const done: CallResult = {
  status: "done",
  action_id: "act_1",
  message: "Reached the target.",
  timed_out: true,
  settled_by: "observation",
};

describe("UndeliveredMotions: what counts as the same motion", () => {
  const registry = createDefaultTools(testConfig());

  it("the tool and its parsed arguments, key order ignored; other values, reads and stop are never the same motion", () => {
    const m = new UndeliveredMotions(registry);
    const key = m.keyOf({ name: "move_joints", args: { positions: { elbow: 0.5 }, speed: 0.2 } });
    expect(key).toBeDefined();
    expect(m.keyOf({ name: "move_joints", args: { speed: 0.2, positions: { elbow: 0.5 } } })).toBe(key);
    expect(m.keyOf({ name: "move_joints", args: { positions: { elbow: 0.5 } } })).not.toBe(key);
    expect(m.keyOf({ name: "move_joints", args: { positions: { elbow: 0.51 }, speed: 0.2 } })).not.toBe(key);
    expect(m.keyOf({ name: "get_arm_state", args: {} })).toBeUndefined();
    expect(m.keyOf({ name: "stop", args: {} })).toBeUndefined();
    expect(m.keyOf({ name: "move_joints", args: { positions: { no_such_joint: 1 } } })).toBeUndefined();
  });

  it("a repeat joins until the model is told; then the same call is a new motion", async () => {
    const m = new UndeliveredMotions(registry);
    let settle: (r: FunctionResponse) => void = () => undefined;
    const response = new Promise<FunctionResponse>((resolve) => (settle = resolve));
    const first = call("fc1", "move_joints", { positions: { elbow: 0.5 } });
    m.miss(first, response, "interrupted");
    const repeat = call("fc2", "move_joints", { positions: { elbow: 0.5 } });
    const motion = m.repeatsIn([repeat])[0]!;
    expect(motion.call.id).toBe("fc1");
    const joined = m.join(repeat, motion);
    settle({ id: "fc1", name: "move_joints", response: { output: done } });
    const r = await joined;
    expect(r).toMatchObject({
      id: "fc2",
      name: "move_joints",
      response: { output: { status: "done", action_id: "act_1", joined_call_id: "fc1" } },
    });
    await m.allSettled();
    expect(missedOutcomesNote(m.untold())).toContain("call fc1 move_joints");
    m.told(motion.call);
    expect(m.repeatsIn([repeat])).toEqual([undefined]);
    expect(m.untold()).toEqual([]);
  });

  it("the join window: open while the motion runs and until told, closed joinWindowMs after it settled", async () => {
    let now = 1_000;
    const m = new UndeliveredMotions(registry, { joinWindowMs: 5_000, now: () => now });
    let settle: (r: FunctionResponse) => void = () => undefined;
    const first = call("fc1", "move_joints", { positions: { elbow: 0.5 } });
    m.miss(first, new Promise<FunctionResponse>((resolve) => (settle = resolve)), "connection_lost");
    const repeat = call("fc2", "move_joints", { positions: { elbow: 0.5 } });
    now += 60_000;
    // Still running, however long: a repeat joins.
    expect(m.repeatsIn([repeat])[0]?.call.id).toBe("fc1");
    settle({ id: "fc1", name: "move_joints", response: { output: done } });
    await m.allSettled();
    now += 5_000;
    expect(m.repeatsIn([repeat])[0]?.call.id).toBe("fc1");
    now += 1;
    // Past the window: a new motion, though the model is still owed the outcome in a note.
    expect(m.repeatsIn([repeat])).toEqual([undefined]);
    expect(m.untold().map((u) => u.call.id)).toEqual(["fc1"]);
  });

  it("a joined call whose first call moved nothing says so, and that calling again tries anew", async () => {
    const m = new UndeliveredMotions(registry);
    const first = call("fc1", "move_joints", { positions: { elbow: 0.5 } });
    const failed: CallResult = {
      status: "failed",
      action_id: "act_2",
      reason: "refused by the controller",
      message: "The arm refused the motion.",
      timed_out: false,
      settled_by: "completion",
    };
    m.miss(first, Promise.resolve({ id: "fc1", name: "move_joints", response: { output: failed } }), "connection_lost");
    const r = await m.join(call("fc2", "move_joints", { positions: { elbow: 0.5 } }), m.repeatsIn([first])[0]!);
    const out = (r.response as { output: CallResult }).output;
    expect(out).toMatchObject({ status: "failed", joined_call_id: "fc1" });
    expect(out.message).toMatch(
      /^Not run: this call repeats call fc1 \(act_2\).*connection to the model was lost.*did not move the arm \(failed\).*Call it again to try anew\.$/,
    );
  });

  it("a new motion request ends the replay: after it no earlier lost motion joins, also not in the same toolCall; a later loss opens only its own", async () => {
    const m = new UndeliveredMotions(registry);
    const far = call("r1-a", "move_joints", { positions: { wrist_3: 1.3 } });
    const near = call("r2-a", "move_joints", { positions: { wrist_3: 0.7 } });
    m.miss(far, Promise.resolve({ id: "r1-a", name: "move_joints", response: { output: done } }), "connection_lost");
    m.miss(near, Promise.resolve({ id: "r2-a", name: "move_joints", response: { output: done } }), "connection_lost");
    const read = call("s1", "get_arm_state", {});
    // A read asks for nothing new; a repeat after it still joins. A new target ends the replay for what follows it.
    const [r, joined, fresh, late] = m.repeatsIn([
      read,
      call("r2-b", "move_joints", { positions: { wrist_3: 0.7 } }),
      call("n1", "move_joints", { positions: { wrist_3: 0.2 } }),
      call("r1-b", "move_joints", { positions: { wrist_3: 1.3 } }),
    ]);
    expect([r, joined?.call.id, fresh, late]).toEqual([undefined, "r2-a", undefined, undefined]);
    expect(m.repeatsIn([call("r1-c", "move_joints", { positions: { wrist_3: 1.3 } })])).toEqual([undefined]);
    // Still owed to the model in a note.
    expect(m.untold().map((u) => u.call.id)).toEqual(["r1-a", "r2-a"]);
    // A new call for an old target, lost in its turn, is joined under its own id, never under the old motion's.
    const again = call("r3-a", "move_joints", { positions: { wrist_3: 1.3 } });
    m.miss(
      again,
      Promise.resolve({ id: "r3-a", name: "move_joints", response: { output: { ...done, action_id: "act_3" } } }),
      "connection_lost",
    );
    expect(m.repeatsIn([call("r3-b", "move_joints", { positions: { wrist_3: 1.3 } })])[0]?.call.id).toBe("r3-a");
  });

  it("a delivered motion leaves at once; lost again before the model read it, it joins again", () => {
    const m = new UndeliveredMotions(registry);
    const first = call("fc1", "move_joints", { positions: { elbow: 0.5 } });
    const response = Promise.resolve({ id: "fc1", name: "move_joints", response: { output: done } });
    m.miss(first, response, "connection_lost");
    const repeat = call("fc2", "move_joints", { positions: { elbow: 0.5 } });
    const motion = m.repeatsIn([repeat])[0]!;
    m.told(motion.call);
    expect(m.untold()).toEqual([]);
    m.miss(motion.call, response, "connection_lost");
    expect(m.repeatsIn([repeat])[0]?.call.id).toBe("fc1");
  });
});
