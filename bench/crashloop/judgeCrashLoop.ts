import { motionIntervals, overlappingPairs, type EffectLine } from "../../firmware-sim/effectsJudge.js";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { pathsMeetingUnsettled, type UnsettledRowView } from "./pathsMeetingUnsettled.js";

/** The part of a ledger row (GET /v1/actions) the judge reads. */
export interface LedgerRowView extends UnsettledRowView {
  readonly action_id: string;
  readonly call_id: string;
  readonly state: string;
  readonly message: string | null;
  readonly result?: { readonly message?: string } | undefined;
}

/** One re-sent call id and what the bridge answered. */
export interface ResendRecord {
  readonly callId: string;
  /** same_args: the recorded result is due; other_args: `rejected` (ARMB_ERR_CALL_ID_REUSED) is due. */
  readonly kind: "same_args" | "other_args";
  /**
   * The action id an earlier answer for this call id carried, if the harness
   * got one; undefined when every earlier answer was lost to a kill (the
   * bridge may or may not have recorded the call) or carried none.
   */
  readonly knownActionId: string | undefined;
  readonly status: string;
  readonly replayed: boolean;
  readonly errorCode: string | undefined;
  readonly actionId: string | undefined;
}

/** One broken invariant, with what the effects log and the ledger showed. */
export interface Violation {
  readonly actionId: string | undefined;
  readonly callId: string | undefined;
  readonly detail: string;
}

/** The invariants, each a list of violations (the count is its length); all must be empty. */
export interface CrashLoopVerdict {
  /** An action id with two or more motion_start lines. */
  readonly duplicateStarts: readonly Violation[];
  /** Two motions driving one joint at once. */
  readonly overlaps: readonly Violation[];
  /** A motion whose action id has no ledger row (the arm moved for something the ledger never recorded). */
  readonly motionsWithoutRow: readonly Violation[];
  /** Rows still `started` after the final restart (start-up reconciliation left them). */
  readonly rowsLeftStarted: readonly Violation[];
  /** `done` without a `reached` motion — except a `done` that says the command never ran and has no motion_start. */
  readonly doneWithoutReachedMotion: readonly Violation[];
  /** `failed` although the arm moved for it (a start that faulted where it began is not a motion). */
  readonly failedWithMotion: readonly Violation[];
  /** A call id with two ledger rows: the same call executed under two action ids. */
  readonly callIdsWithTwoRows: readonly Violation[];
  /** A same-args re-send of a recorded call that was not answered with the recorded result. */
  readonly resendNotReplayed: readonly Violation[];
  /** An other-args re-send of a recorded call that was not `rejected`. */
  readonly reusedIdNotRejected: readonly Violation[];
  /**
   * A motion accepted while another that had moved was unsettled (started, or
   * unknown until confirmed — across restarts too), whose paths together could
   * take a link outside the workspace envelope (pathsMeetingUnsettled).
   */
  readonly unsettledPathsMeet: readonly Violation[];
}

export type InvariantName = keyof CrashLoopVerdict;

/** Figures beside the verdict: what happened, not what went wrong. */
export interface CrashLoopTally {
  readonly rows: number;
  readonly rowsByState: Readonly<Record<string, number>>;
  readonly motionStarts: number;
  readonly reached: number;
  /** Motions halted by firmware-sim's host-silence watchdog. */
  readonly watchdogStops: number;
  /** `done` rows that say the command never ran, with no motion_start and the id voided on the device: accepted. */
  readonly doneNeverRan: number;
  /** `failed` rows whose start faulted where it began (nothing moved): accepted. */
  readonly failedFaultedAtStart: number;
  readonly voided: number;
  /** MOVEs the device answered from its action table (an id it already had): the device-side de-duplication. */
  readonly duplicateRefused: number;
  /**
   * Same-args re-sends of calls with no ledger row, refused on their own merits
   * (the arm's pose meanwhile took the path outside the envelope, say): a call
   * never recorded runs for the first time when re-sent, admission included.
   * Accepted; by error code.
   */
  readonly freshRefusals: Readonly<Record<string, number>>;
}

/** Refusals that say the bridge took a same-args re-send for another call: never right. */
const IDEMPOTENCY_REFUSALS: ReadonlySet<string> = new Set([
  "ARMB_ERR_CALL_ID_REUSED",
  "ARMB_ERR_CALL_ID_DUPLICATE_IN_BATCH",
]);

/** How a `done` row says its command never ran (firmware already at the target, the id voided first). */
const NEVER_RAN = /\b(never ran|never run|never executed|did not run|was not run|never started)\b/i;

/**
 * Judges a crash loop by ground truth only: firmware-sim's effects log and
 * the ledger as read back through the HTTP API. Pure, so it is checked on
 * hand-made logs (test/crashloop/judgeCrashLoop.test.ts).
 */
export interface JudgeOptions {
  /** Ledger rows per call id; default from `rows`. */
  readonly rowsOfCall?: ReadonlyMap<string, readonly string[]> | undefined;
  /** The arm config, for the envelope across unsettled motions; without one (or without kinematics) that invariant has nothing to check. */
  readonly config?: ArmConfig | undefined;
}

export function judgeCrashLoop(
  events: readonly EffectLine[],
  rows: readonly LedgerRowView[],
  resends: readonly ResendRecord[],
  options: JudgeOptions = {},
): { verdict: CrashLoopVerdict; tally: CrashLoopTally } {
  const rowsOfCall = options.rowsOfCall ?? rowsByCall(rows);
  const rowById = new Map(rows.map((r) => [r.action_id, r]));
  const starts = new Map<string, EffectLine[]>();
  const ends = new Map<string, EffectLine>();
  let watchdogStops = 0;
  let voided = 0;
  let duplicateRefused = 0;
  const voidedIds = new Set<string>();
  for (const e of events) {
    if (e.action_id === null) continue;
    if (e.event === "motion_start") starts.set(e.action_id, [...(starts.get(e.action_id) ?? []), e]);
    if (e.event === "motion_end") {
      ends.set(e.action_id, e);
      if (e.outcome === "stopped" && /watchdog/.test((e as { detail?: string }).detail ?? "")) watchdogStops++;
    }
    if (e.event === "voided") {
      voided++;
      voidedIds.add(e.action_id);
    }
    if (e.event === "duplicate_refused") duplicateRefused++;
  }

  const duplicateStarts: Violation[] = [];
  const motionsWithoutRow: Violation[] = [];
  for (const [actionId, list] of starts) {
    const row = rowById.get(actionId);
    if (list.length > 1)
      duplicateStarts.push({
        actionId,
        callId: row?.call_id,
        detail: `${list.length} motion_start lines (t=${list.map((s) => s.t).join(", ")}); ledger: ${row ? row.state : "no row"}`,
      });
    if (!row)
      motionsWithoutRow.push({
        actionId,
        callId: undefined,
        detail: `motion_start at t=${list[0]?.t} on ${list[0]?.joints.join(",")}; no ledger row with this action id`,
      });
  }

  const overlaps: Violation[] = overlappingPairs(events).map(([a, b]) => {
    const ia = motionIntervals(events).find((m) => m.actionId === a);
    const ib = motionIntervals(events).find((m) => m.actionId === b);
    return {
      actionId: a,
      callId: rowById.get(a)?.call_id,
      detail: `${a} [${ia?.start}..${ia?.end}] on ${ia?.joints.join(",")} overlaps ${b} [${ib?.start}..${ib?.end}] on ${ib?.joints.join(",")}; ledger: ${rowById.get(a)?.state ?? "no row"} / ${rowById.get(b)?.state ?? "no row"}`,
    };
  });

  const rowsLeftStarted: Violation[] = [];
  const doneWithoutReachedMotion: Violation[] = [];
  const failedWithMotion: Violation[] = [];
  let doneNeverRan = 0;
  let failedFaultedAtStart = 0;
  const rowsByState: Record<string, number> = {};
  for (const row of rows) {
    rowsByState[row.state] = (rowsByState[row.state] ?? 0) + 1;
    const started = starts.get(row.action_id) ?? [];
    const end = ends.get(row.action_id);
    const truth =
      started.length === 0 ? "no motion_start" : end ? `motion_end ${end.outcome}` : "motion_start, no motion_end yet";
    const where = { actionId: row.action_id, callId: row.call_id };
    switch (row.state) {
      case "started":
        rowsLeftStarted.push({ ...where, detail: `still started after the final restart; effects log: ${truth}` });
        break;
      case "done": {
        if (end?.outcome === "reached" && started.length > 0) break;
        const says = `${row.message ?? ""} ${row.result?.message ?? ""}`;
        // "Never ran" is true only once the device has refused the id for good (its `voided` line):
        // without it a late copy of the MOVE could still start after the joint was released (finding 11).
        if (started.length === 0 && NEVER_RAN.test(says) && voidedIds.has(row.action_id)) {
          doneNeverRan++;
          break;
        }
        doneWithoutReachedMotion.push({
          ...where,
          detail: `done, but the effects log shows ${truth}${end ? ` (rest ${JSON.stringify(end.to)})` : ""}; message: ${JSON.stringify(row.message)}`,
        });
        break;
      }
      case "failed":
        if (started.length === 0) break;
        if (end && faultedWhereItBegan(end)) {
          failedFaultedAtStart++;
          break;
        }
        failedWithMotion.push({
          ...where,
          detail: `failed, but the effects log shows ${truth}${end ? ` from ${JSON.stringify(end.from)} to ${JSON.stringify(end.to)}` : ""}; message: ${JSON.stringify(row.message)}`,
        });
        break;
      default:
        break;
    }
  }

  const callIdsWithTwoRows: Violation[] = [];
  for (const [callId, ids] of rowsOfCall) {
    if (ids.length > 1)
      callIdsWithTwoRows.push({
        actionId: ids[0],
        callId,
        detail: `${ids.length} rows: ${ids.join(", ")}; motion_starts: ${ids.map((id) => starts.get(id)?.length ?? 0).join(", ")}`,
      });
  }

  const resendNotReplayed: Violation[] = [];
  const reusedIdNotRejected: Violation[] = [];
  const freshRefusals: Record<string, number> = {};
  for (const r of resends) {
    const recorded = rowsOfCall.get(r.callId) ?? [];
    const where = { actionId: r.actionId ?? r.knownActionId ?? recorded[0], callId: r.callId };
    const answer = `answered ${r.status}${r.replayed ? " (replayed)" : ""}${r.errorCode ? ` ${r.errorCode}` : ""}${r.actionId ? ` ${r.actionId}` : ""}`;
    if (r.kind === "same_args") {
      // A recorded call is answered with its recorded result, never refused. A call whose earlier
      // answers were all lost may never have been recorded (killed before its intent was durable, or
      // refused at admission) and then runs now for the first time, admission included: refused on
      // its own merits it is not an idempotency failure. If it had been recorded, a second row for the
      // call id shows it (callIdsWithTwoRows).
      const notReplayed = r.knownActionId !== undefined && (!r.replayed || r.actionId !== r.knownActionId);
      const refusedAnew =
        r.status === "rejected" &&
        r.knownActionId === undefined &&
        recorded.length === 0 &&
        !IDEMPOTENCY_REFUSALS.has(r.errorCode ?? "");
      if (refusedAnew) {
        const code = r.errorCode ?? "(no code)";
        freshRefusals[code] = (freshRefusals[code] ?? 0) + 1;
      } else if (r.status === "rejected" || notReplayed) {
        resendNotReplayed.push({
          ...where,
          detail: `same-args re-send (earlier answer: ${r.knownActionId ?? "lost or without an action"}) ${answer}; ledger rows for the call: ${recorded.length}`,
        });
      }
    } else if (r.status !== "rejected" || r.errorCode !== "ARMB_ERR_CALL_ID_REUSED") {
      reusedIdNotRejected.push({
        ...where,
        detail: `other-args re-send of a recorded call ${answer}; ledger rows for the call: ${recorded.length}`,
      });
    }
  }

  const unsettledPathsMeet: Violation[] = options.config ? pathsMeetingUnsettled(events, rows, options.config) : [];

  let reached = 0;
  for (const end of ends.values()) if (end.outcome === "reached") reached++;
  return {
    verdict: {
      duplicateStarts,
      overlaps,
      motionsWithoutRow,
      rowsLeftStarted,
      doneWithoutReachedMotion,
      failedWithMotion,
      callIdsWithTwoRows,
      resendNotReplayed,
      reusedIdNotRejected,
      unsettledPathsMeet,
    },
    tally: {
      rows: rows.length,
      rowsByState,
      motionStarts: [...starts.values()].reduce((n, l) => n + l.length, 0),
      reached,
      watchdogStops,
      doneNeverRan,
      failedFaultedAtStart,
      voided,
      duplicateRefused,
      freshRefusals,
    },
  };
}

/** Ledger rows per call id (action ids, in row order). */
export function rowsByCall(rows: readonly LedgerRowView[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.call_id, [...(out.get(r.call_id) ?? []), r.action_id]);
  return out;
}

/** A drive fault at start: the motion ended "faulted" exactly where it began, so nothing moved. */
function faultedWhereItBegan(end: EffectLine): boolean {
  if (end.outcome !== "faulted" || !end.from || !end.to) return false;
  const to = end.to;
  return Object.entries(end.from).every(([axis, p]) => to[axis] === p);
}

/** Every invariant's name, in the order the report prints them. */
export const INVARIANTS: readonly InvariantName[] = [
  "duplicateStarts",
  "overlaps",
  "motionsWithoutRow",
  "rowsLeftStarted",
  "doneWithoutReachedMotion",
  "failedWithMotion",
  "callIdsWithTwoRows",
  "resendNotReplayed",
  "reusedIdNotRejected",
  "unsettledPathsMeet",
];
