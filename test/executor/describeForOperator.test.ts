import { ACTION_STATES, type ActionRowState } from "../../src/wire/vocabulary.js";
import { describe, expect, it } from "vitest";
import { describeForOperator } from "../../src/executor/operator/describeForOperator.js";
import { resultFromRow } from "../../src/executor/calls/resultFromRow.js";
import type { ActionRow } from "../../src/ledger/ActionRow.js";

function row(state: ActionRowState, patch: Partial<ActionRow> = {}): ActionRow {
  return {
    actionId: "act_1",
    callId: "c1",
    tool: "move_joints",
    args: { positions: { wrist_2: 0.9 } },
    argsHash: "h",
    resources: ["joint:wrist_2"],
    command: { actionId: "act_1", targets: { wrist_2: 0.9 }, speed: 0.5 },
    armIncarnation: undefined,
    client: undefined,
    approval: undefined,
    state,
    timedOut: false,
    settledBy: state.startsWith("confirmed") ? "operator" : "completion",
    message: undefined,
    evidence: { notes: ["wrist_2 stopped at 0.450"] },
    operator: state.startsWith("confirmed") ? "ana" : undefined,
    operatorNote: undefined,
    operatorOutcome: undefined,
    observed: state === "confirmed_partial" ? { pose: { wrist_2: 0.45 }, stampMs: 1 } : undefined,
    createdAt: 0,
    settledAt: 1,
    confirmedAt: undefined,
    updatedAt: 1,
    ...patch,
  };
}

describe("describeForOperator: every state in words for the operator, never the model's instructions", () => {
  it.each(ACTION_STATES)("%s", (state) => {
    const words = describeForOperator(row(state));
    expect(words.length).toBeGreaterThan(10);
    expect(words).not.toMatch(/Ask the user|Do NOT re-run|Proceed to the next step/);
    expect(words).not.toBe(resultFromRow(row(state)).message);
  });

  it("says what each confirmation was, with the pose for a partial one", () => {
    expect(describeForOperator(row("confirmed_partial", { operatorOutcome: "partial", operatorNote: "jammed" }))).toBe(
      'ana confirmed it stopped part-way, at wrist_2=0.450 (target 0.900) ("jammed").',
    );
    expect(describeForOperator(row("confirmed_done"))).toBe("ana confirmed it reached the target.");
    expect(describeForOperator(row("confirmed_not_done"))).toBe("ana confirmed it did not move.");
  });

  it("never says a voided command ran", () => {
    const voided = row("done", {
      settledBy: "observation",
      evidence: { record: { actionId: "act_1", state: "voided", moved: false } },
    });
    expect(describeForOperator(voided)).toMatch(/^Already at the target; this command never ran/);
  });
});
