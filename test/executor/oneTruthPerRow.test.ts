import { afterEach, describe, expect, it } from "vitest";
import { resultFromRow } from "../../src/executor/calls/resultFromRow.js";
import { actionView } from "../../src/surfaces/http/actionView.js";
import { createHarness, type Harness } from "../support/executorHarness.js";

/**
 * After an operator's confirmation the row's message
 * must read as confirmed everywhere — in the ledger itself (other SQLite
 * readers, the CLI through the API), in the API's view and in the result a
 * model gets — never "Do NOT re-run" beside a state that allows it.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a confirmed row reads as confirmed everywhere", () => {
  it.each([
    ["done", "confirmed_done", /An operator \(ana\) confirmed that move_joints .* reached its target/],
    ["not_done", "confirmed_not_done", /An operator \(ana\) confirmed that move_joints .* did not move the arm/],
    ["reached", "confirmed_done", /An operator \(ana\) confirmed that move_joints .* reached its target/],
    ["partial", "confirmed_partial", /An operator \(ana\) confirmed that move_joints .* stopped part-way/],
    ["not_moved", "confirmed_not_done", /An operator \(ana\) confirmed that move_joints .* did not move the arm/],
  ] as const)("confirm %s", async (outcome, state, words) => {
    h = await createHarness({ arm: { behaviour: () => "forget", motionMs: () => 300 } });
    const [r] = await h.executor.execute([{ id: "c1", name: "move_joints", args: { positions: { elbow: 0.5 } } }], {
      deadlineMs: 100,
    });
    expect(r!.result.status).toBe("unknown");
    const id = r!.result.status === "unknown" ? r!.result.action_id! : "";
    expect(h.ledger.get(id)?.message).toMatch(/Do NOT re-run/);

    h.executor.confirm(id, { outcome, operator: " ana ", note: "checked" });
    const row = h.ledger.mustGet(id);
    expect(row.state).toBe(state);
    // The stored message itself, as any reader of the ledger sees it.
    expect(row.message).toMatch(words);
    expect(row.message).not.toMatch(/Do NOT re-run/);
    const view = actionView(row);
    expect(view.message).toBe(row.message);
    expect(view.result.message).toBe(row.message);
    expect(resultFromRow(row).message).toBe(row.message);
  });
});
