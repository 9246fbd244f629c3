import { describe, expect, it } from "vitest";
import type { EffectLine } from "../../firmware-sim/effectsJudge.js";
import {
  INVARIANTS,
  judgeCrashLoop,
  type LedgerRowView,
  type ResendRecord,
} from "../../bench/crashloop/judgeCrashLoop.js";
import { loadConfig } from "../../src/config/loadConfig.js";

// Hand-made effects logs and ledger rows, shaped as firmware-sim and GET /v1/actions give them.
const start = (id: string, t: number, joint = "elbow", from = 0, to = 0.5): EffectLine => ({
  event: "motion_start",
  action_id: id,
  joints: [joint],
  t,
  from: { [joint]: from },
  to: { [joint]: to },
});
const end = (id: string, t: number, outcome: string, joint = "elbow", from = 0, rest = 0.5): EffectLine => ({
  event: "motion_end",
  action_id: id,
  joints: [joint],
  t,
  outcome,
  from: { [joint]: from },
  to: { [joint]: rest },
});
const row = (
  action_id: string,
  state: string,
  call_id = `call-${action_id}`,
  message: string | null = null,
): LedgerRowView => ({ action_id, call_id, state, message });
const resend = (r: Partial<ResendRecord> & Pick<ResendRecord, "callId" | "kind">): ResendRecord => ({
  knownActionId: undefined,
  status: "done",
  replayed: false,
  errorCode: undefined,
  actionId: undefined,
  ...r,
});

const counts = (
  events: readonly EffectLine[],
  rows: readonly LedgerRowView[],
  resends: readonly ResendRecord[] = [],
) => {
  const { verdict } = judgeCrashLoop(events, rows, resends);
  return Object.fromEntries(INVARIANTS.map((name) => [name, verdict[name].length]));
};
const zero = Object.fromEntries(INVARIANTS.map((name) => [name, 0]));

describe("judgeCrashLoop: the crash loop's invariants, from the effects log and the ledger only", () => {
  it("a clean run breaks nothing: reached motions done, a fault at start failed, a halted motion confirmed by an operator", () => {
    const events = [
      start("a", 0),
      end("a", 100, "reached"),
      start("b", 100),
      end("b", 100, "faulted", "elbow", 0.5, 0.5),
      start("c", 200),
      end("c", 400, "stopped"),
    ];
    const rows = [row("a", "done"), row("b", "failed"), row("c", "confirmed_not_done")];
    expect(counts(events, rows)).toEqual(zero);
    const { tally } = judgeCrashLoop(events, rows, []);
    expect(tally).toMatchObject({ rows: 3, motionStarts: 3, reached: 1, failedFaultedAtStart: 1 });
  });

  it("an action id started twice is a duplicate start", () => {
    expect(
      counts([start("a", 0), end("a", 100, "reached"), start("a", 300), end("a", 400, "reached")], [row("a", "done")])
        .duplicateStarts,
    ).toBe(1);
  });

  it("two motions on one joint at once are an overlap; on different joints they are not", () => {
    expect(
      counts(
        [start("a", 0), start("b", 50), end("a", 100, "reached"), end("b", 150, "reached")],
        [row("a", "done"), row("b", "done")],
      ).overlaps,
    ).toBe(1);
    expect(
      counts(
        [start("a", 0), start("b", 50, "wrist_1"), end("a", 100, "reached"), end("b", 150, "reached", "wrist_1")],
        [row("a", "done"), row("b", "done")],
      ).overlaps,
    ).toBe(0);
  });

  it("a motion the ledger has no row for is counted", () => {
    expect(counts([start("ghost", 0), end("ghost", 100, "reached")], []).motionsWithoutRow).toBe(1);
  });

  it("a row still started after the final restart is counted", () => {
    expect(counts([start("a", 0), end("a", 100, "reached")], [row("a", "started")]).rowsLeftStarted).toBe(1);
  });

  it("done needs a reached motion: none at all, or one that ended short, is a violation", () => {
    expect(
      counts(
        [],
        [row("a", "done", "c1", "move_joints completed: the target was reached, confirmed by observing the arm.")],
      ).doneWithoutReachedMotion,
    ).toBe(1);
    expect(counts([start("a", 0), end("a", 100, "stopped")], [row("a", "done")]).doneWithoutReachedMotion).toBe(1);
    expect(counts([start("a", 0)], [row("a", "done")]).doneWithoutReachedMotion).toBe(1);
  });

  it("done that says the command never ran is accepted only with no motion_start for it and its id voided on the device", () => {
    const says = "move_joints: the arm was already at the target; the command never ran.";
    const accepted = judgeCrashLoop(
      [{ event: "voided", action_id: "a", joints: [], t: 5 }],
      [row("a", "done", "c1", says)],
      [],
    );
    expect(accepted.verdict.doneWithoutReachedMotion).toHaveLength(0);
    expect(accepted.tally).toMatchObject({ doneNeverRan: 1, voided: 1 });
    expect(
      counts([start("a", 0), end("a", 100, "stopped")], [row("a", "done", "c1", says)]).doneWithoutReachedMotion,
    ).toBe(1);
    // The case itself: "never ran" with the id never voided, so a late copy could still start.
    expect(counts([], [row("a", "done", "c1", says)]).doneWithoutReachedMotion).toBe(1);
  });

  it("failed with a motion is counted; a fault exactly where it began is not a motion", () => {
    expect(counts([start("a", 0), end("a", 100, "reached")], [row("a", "failed")]).failedWithMotion).toBe(1);
    expect(
      counts([start("a", 0), end("a", 100, "faulted", "elbow", 0, 0.2)], [row("a", "failed")]).failedWithMotion,
    ).toBe(1);
    expect(counts([start("a", 0), end("a", 0, "faulted", "elbow", 0, 0)], [row("a", "failed")]).failedWithMotion).toBe(
      0,
    );
    expect(counts([], [row("a", "failed")]).failedWithMotion).toBe(0);
  });

  it("one call id under two action ids is counted", () => {
    expect(
      counts(
        [start("a", 0), end("a", 100, "reached"), start("b", 200), end("b", 300, "reached")],
        [row("a", "done", "c1"), row("b", "done", "c1")],
      ).callIdsWithTwoRows,
    ).toBe(1);
  });

  it("a same-args re-send of a recorded call must come back as the recorded result", () => {
    const rows = [row("a", "done", "c1")];
    const events = [start("a", 0), end("a", 100, "reached")];
    expect(
      counts(events, rows, [
        resend({ callId: "c1", kind: "same_args", knownActionId: "a", replayed: true, actionId: "a" }),
      ]).resendNotReplayed,
    ).toBe(0);
    expect(
      counts(events, rows, [
        resend({ callId: "c1", kind: "same_args", knownActionId: "a", replayed: false, actionId: "a" }),
      ]).resendNotReplayed,
    ).toBe(1);
    expect(
      counts(events, rows, [
        resend({ callId: "c1", kind: "same_args", knownActionId: "a", replayed: true, actionId: "b" }),
      ]).resendNotReplayed,
    ).toBe(1);
    expect(
      counts(events, rows, [
        resend({ callId: "c1", kind: "same_args", status: "rejected", errorCode: "ARMB_ERR_CALL_ID_REUSED" }),
      ]).resendNotReplayed,
    ).toBe(1);
  });

  it("a same-args re-send of a call whose answer was lost may run for the first time (the bridge never recorded it)", () => {
    expect(
      counts(
        [start("a", 0), end("a", 100, "reached")],
        [row("a", "done", "c1")],
        [resend({ callId: "c1", kind: "same_args", replayed: false, actionId: "a" })],
      ),
    ).toEqual(zero);
  });

  it("a same-args re-send of a call never recorded may be refused on its own merits, not as a reused id, and not when a row exists", () => {
    const refusedAnew = resend({
      callId: "c9",
      kind: "same_args",
      status: "rejected",
      errorCode: "ARMB_ERR_ENVELOPE_VIOLATION",
    });
    const judged = judgeCrashLoop([], [], [refusedAnew]);
    expect(judged.verdict.resendNotReplayed).toHaveLength(0);
    expect(judged.tally.freshRefusals).toEqual({ ARMB_ERR_ENVELOPE_VIOLATION: 1 });
    // The bridge taking the same arguments for another call is never right, recorded or not.
    expect(
      counts(
        [],
        [],
        [resend({ callId: "c9", kind: "same_args", status: "rejected", errorCode: "ARMB_ERR_CALL_ID_REUSED" })],
      ).resendNotReplayed,
    ).toBe(1);
    // A row for the call means there was a result to replay: refusing is a violation.
    expect(
      counts([start("a", 0), end("a", 100, "reached")], [row("a", "done", "c9")], [refusedAnew]).resendNotReplayed,
    ).toBe(1);
  });

  it("an other-args re-send of a recorded call must be rejected as a reused id", () => {
    const rows = [row("a", "done", "c1")];
    const events = [start("a", 0), end("a", 100, "reached")];
    expect(
      counts(events, rows, [
        resend({
          callId: "c1",
          kind: "other_args",
          knownActionId: "a",
          status: "rejected",
          errorCode: "ARMB_ERR_CALL_ID_REUSED",
        }),
      ]).reusedIdNotRejected,
    ).toBe(0);
    expect(
      counts(events, rows, [
        resend({ callId: "c1", kind: "other_args", knownActionId: "a", status: "done", replayed: true, actionId: "a" }),
      ]).reusedIdNotRejected,
    ).toBe(1);
    expect(
      counts(events, rows, [
        resend({
          callId: "c1",
          kind: "other_args",
          knownActionId: "a",
          status: "rejected",
          errorCode: "ARMB_ERR_ARGS_INVALID",
        }),
      ]).reusedIdNotRejected,
    ).toBe(1);
  });

  describe("an accepted motion whose path could meet an unsettled motion's outside the envelope (the default arm's floor_z)", () => {
    const config = loadConfig();
    // Elbow and wrist_1 moved, shoulder_lift stalled half-way (unknown), then elbow towards 0.
    const move = (
      id: string,
      t: number,
      from: Record<string, number>,
      to: Record<string, number>,
      rest = to,
      outcome = "reached",
    ): EffectLine[] => [
      { event: "motion_start", action_id: id, joints: Object.keys(to), t, from, to },
      { event: "motion_end", action_id: id, joints: Object.keys(to), t: t + 500, outcome, from, to: rest },
    ];
    const events = [
      ...move("first", 1000, { elbow: 1, wrist_1: -0.5 }, { elbow: -0.899, wrist_1: 1.184 }),
      ...move("stalled", 2000, { shoulder_lift: -0.5 }, { shoulder_lift: 1.091 }, { shoulder_lift: 0.2955 }, "stalled"),
      ...move("later", 9000, { elbow: -0.899 }, { elbow: -0.002 }),
    ];
    const timed = (id: string, state: string, created: number, settled: number | null): LedgerRowView => ({
      ...row(id, state),
      created_at: created,
      settled_at: settled,
    });
    const judge = (rows: LedgerRowView[], evs = events) =>
      judgeCrashLoop(evs, rows, [], { config }).verdict.unsettledPathsMeet;

    it("accepted while the stalled one was still unknown (before a restart or after): a violation naming both", () => {
      const found = judge([
        timed("first", "done", 990, 1500),
        timed("stalled", "confirmed_partial", 1990, 20_000),
        timed("later", "done", 8990, 9500),
      ]);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ actionId: "later", callId: "call-later" });
      expect(found[0]!.detail).toMatch(/stalled.*wrist_1_link.*floor_z/);
      // Never confirmed at all counts the same.
      expect(
        judge([
          timed("first", "done", 990, 1500),
          timed("stalled", "unknown", 1990, null),
          timed("later", "done", 8990, 9500),
        ]),
      ).toHaveLength(1);
    });

    it("accepted after an operator confirmed it, or on a path that stays clear of it, or without the judge's config: none", () => {
      expect(
        judge([
          timed("first", "done", 990, 1500),
          timed("stalled", "confirmed_partial", 1990, 8000),
          timed("later", "done", 8990, 9500),
        ]),
      ).toEqual([]);
      const clear = [...events.slice(0, 4), ...move("later", 9000, { wrist_3: 0 }, { wrist_3: 1 })];
      expect(
        judge(
          [
            timed("first", "done", 990, 1500),
            timed("stalled", "unknown", 1990, null),
            timed("later", "done", 8990, 9500),
          ],
          clear,
        ),
      ).toEqual([]);
      expect(
        judgeCrashLoop(events, [timed("stalled", "unknown", 1990, null), timed("later", "done", 8990, 9500)], [])
          .verdict.unsettledPathsMeet,
      ).toEqual([]);
    });

    it("an unsettled motion that never physically started has no path to meet", () => {
      const noStart = events.filter((e) => e.action_id !== "stalled");
      expect(
        judge(
          [
            timed("first", "done", 990, 1500),
            timed("stalled", "unknown", 1990, null),
            timed("later", "done", 8990, 9500),
          ],
          noStart,
        ),
      ).toEqual([]);
    });
  });
});
