import { describe, expect, it } from "vitest";
import type { CallResult } from "../../../src/executor/CallResult.js";
import { createDefaultTools } from "../../../src/tools/defaultTools.js";
import type { FunctionResponse } from "../../../src/surfaces/toFunctionResponse.js";
import { missedOutcomesNote, UndeliveredMotions } from "../../../src/surfaces/gemini/UndeliveredMotions.js";
import { testConfig } from "../../support/testConfig.js";

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, args, idAssigned: false });
const done: CallResult = { status: "done", action_id: "act_1", message: "Reached the target.", timed_out: true, settled_by: "observation" };

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
    const motion = m.repeatOf(repeat)!;
    expect(motion.call.id).toBe("fc1");
    const joined = m.join(repeat, motion);
    settle({ id: "fc1", name: "move_joints", response: { output: done } });
    const r = await joined;
    expect(r).toMatchObject({ id: "fc2", name: "move_joints", response: { output: { status: "done", action_id: "act_1", joined_call_id: "fc1" } } });
    await m.allSettled();
    expect(missedOutcomesNote(m.untold())).toContain("call fc1 move_joints");
    m.told(repeat);
    expect(m.repeatOf(repeat)).toBeUndefined();
    expect(m.untold()).toEqual([]);
  });
});
