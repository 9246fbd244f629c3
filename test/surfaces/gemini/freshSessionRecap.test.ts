import { describe, expect, it } from "vitest";
import type { CallResponse, FunctionCall } from "../../../src/executor/calls/CallResult.js";
import { freshSessionRecap, RECAP_MAX_ACTIONS } from "../../../src/surfaces/gemini/freshSessionRecap.js";

/** An executor that answers get_action_status from a table, and records each batch. */
function ledgerReader(states: Record<string, string>) {
  const batches: FunctionCall[][] = [];
  return {
    batches,
    execute: async (calls: readonly FunctionCall[]): Promise<CallResponse[]> => {
      batches.push([...calls]);
      return calls.map((c) => {
        const id = (c.args as { action_id: string }).action_id;
        return {
          id: c.id ?? "",
          name: c.name,
          result: {
            status: "done",
            message: `Action ${id} (move_joints) is ${states[id]}.`,
            timed_out: false,
            settled_by: "completion",
            output: { found: true, state: states[id] },
          },
        };
      });
    },
  };
}
const motion = (i: number) => ({
  call: { id: `c${i}`, name: "move_joints", args: { positions: { elbow: i / 100 } }, idAssigned: false },
  actionId: `act_${i}`,
});

describe("freshSessionRecap: what a fresh session is told, from the ledger", () => {
  it("each action with its state now; one still started is under way and joined by a repeat", async () => {
    const reader = ledgerReader({ act_1: "done", act_2: "started", act_3: "confirmed_not_done" });
    const text = await freshSessionRecap(reader, [1, 2, 3].map(motion), new AbortController().signal);
    expect(reader.batches).toHaveLength(1);
    expect(reader.batches[0]!.every((c) => c.name === "get_action_status")).toBe(true);
    expect(text).toContain(
      '- call c1 move_joints {"positions":{"elbow":0.01}}, action act_1: done. Action act_1 (move_joints) is done.',
    );
    expect(text).toContain(
      "action act_2: still under way; you will be told its outcome when it settles (calling it again joins it",
    );
    expect(text).toContain("action act_3: confirmed_not_done.");
  });

  it("a long run lists its newest actions in one batch and counts the older ones", async () => {
    const n = RECAP_MAX_ACTIONS + 25;
    const reader = ledgerReader(Object.fromEntries(Array.from({ length: n }, (_, i) => [`act_${i}`, "done"])));
    const text = await freshSessionRecap(
      reader,
      Array.from({ length: n }, (_, i) => motion(i)),
      new AbortController().signal,
    );
    expect(reader.batches).toHaveLength(1);
    expect(reader.batches[0]).toHaveLength(RECAP_MAX_ACTIONS);
    expect(text).toContain("- 25 earlier action(s), older than these");
    expect(text).not.toContain("action act_24:");
    expect(text).toContain(`action act_${n - 1}: done`);
  });

  it("no action yet: says the arm has not moved", async () => {
    const reader = ledgerReader({});
    expect(await freshSessionRecap(reader, [], new AbortController().signal)).toContain(
      "has not moved in this run yet",
    );
    expect(reader.batches).toEqual([]);
  });
});
