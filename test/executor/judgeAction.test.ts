import { describe, expect, it } from "vitest";
import { judgeAction } from "../../src/executor/motion/judgeAction.js";
import { observeTargets } from "../../src/executor/toolContract/observeTargets.js";
import type { ActionRecord, ArmActionState, ArmStatus } from "../../src/transport/Transport.js";
import { testConfig } from "../support/testConfig.js";

/**
 * The gate every settling path shares (observation after a timeout, start-up
 * reconciliation, later statuses): with the elbow still at its target, which
 * records of the action let the pose settle it, and as what.
 */
const config = testConfig();
const NOW = 1_000_000;
const command = { actionId: "act_1", targets: { elbow: 1.0 }, speed: 0.5 };
const atTarget: ArmStatus = {
  stampMs: NOW,
  axes: { elbow: { position: 1.0, velocity: 0, moving: false } },
  faults: [],
  actions: [],
};
const record = (state: ArmActionState, moved: boolean | undefined): ActionRecord => ({
  actionId: "act_1",
  state,
  moved,
});
const judge = (r: ActionRecord | undefined, armRestarted = false) =>
  judgeAction(observeTargets, { command, config, status: atTarget, record: r, nowMs: NOW }, { armRestarted });

describe("judgeAction: the pose settles nothing the arm has not accounted for", () => {
  it.each([
    ["no record at all", undefined, false, { kind: "waiting" }],
    ["the arm never heard of the id", record("unknown", undefined), false, { kind: "waiting" }],
    ["the arm still runs it", record("executing", undefined), false, { kind: "running" }],
    ["the arm reports it reached", record("reached", true), false, { kind: "settled", verdict: { kind: "reached" } }],
    [
      "the arm voided it",
      record("voided", false),
      false,
      { kind: "settled", verdict: { kind: "target_holds", ran: "never" } },
    ],
    ["the arm refused it", record("rejected", false), false, { kind: "settled", verdict: { kind: "not_moved" } }],
    [
      "the arm stopped it, moved unknown",
      record("stopped", undefined),
      false,
      { kind: "settled", verdict: { kind: "reached" } },
    ],
    [
      "no record, the arm restarted since the send",
      undefined,
      true,
      { kind: "settled", verdict: { kind: "target_holds", ran: "unknowable" } },
    ],
    [
      "never heard of, the arm restarted since the send",
      record("unknown", undefined),
      true,
      { kind: "settled", verdict: { kind: "target_holds", ran: "unknowable" } },
    ],
  ] as const)("%s", (_what, r, restarted, expected) => {
    expect(judge(r, restarted)).toMatchObject(expected);
  });

  it("a voided id whose target does not hold is plainly not moved", () => {
    const away: ArmStatus = { ...atTarget, axes: { elbow: { position: 0.2, velocity: 0, moving: false } } };
    const j = judgeAction(
      observeTargets,
      { command, config, status: away, record: record("voided", false), nowMs: NOW },
      { armRestarted: false },
    );
    expect(j).toMatchObject({ kind: "settled", verdict: { kind: "not_moved" } });
  });
});
