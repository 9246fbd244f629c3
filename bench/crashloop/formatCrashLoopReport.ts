import { INVARIANTS, type InvariantName } from "./judgeCrashLoop.js";
import { readyFigures, type CrashLoopReport } from "./runCrashLoop.js";

/** What each invariant means, in the report's words. */
const INVARIANT_LABELS: Readonly<Record<InvariantName, string>> = {
  duplicateStarts: "duplicate starts (an action id with two motion_start)",
  overlaps: "overlaps (two motions on one joint at once)",
  motionsWithoutRow: "motions whose action id has no ledger row",
  rowsLeftStarted: "rows left started after the final restart",
  doneWithoutReachedMotion: "done without a reached motion",
  failedWithMotion: "failed with a motion",
  callIdsWithTwoRows: "call ids with two ledger rows",
  resendNotReplayed: "same-args re-sends not answered with the recorded result",
  reusedIdNotRejected: "other-args re-sends not rejected",
  unsettledPathsMeet: "motions accepted whose path could meet an unsettled motion's outside the envelope",
};

/** The figures of one run, as the script prints them and docs/reliability.md quotes them. */
export function formatCrashLoopReport(report: CrashLoopReport): string {
  const ready = readyFigures(report);
  const ms = (n: number): string => (Number.isNaN(n) ? "n/a" : `${Math.round(n)} ms`);
  const moments = Object.entries(report.killsByMoment)
    .map(([m, n]) => `${m} ${n}`)
    .join(", ");
  const states = Object.entries(report.tally.rowsByState)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s} ${n}`)
    .join(", ");
  const lines = [
    `crash loop, seed ${report.seed}: ${report.kills} kills (${moments}); ${report.downPastWatchdog} stayed down past the watchdog`,
    `calls ${report.calls}, answers lost to kills ${report.answersLost}; re-sent: same args ${report.resends.sameArgs} (of lost answers ${report.resends.ofLostAnswers}), other args ${report.resends.otherArgs}`,
    `ledger rows ${report.tally.rows} (${states}); operator confirmations ${report.operatorConfirms}; unknowns left pending across a restart ${report.unknownsHeldAcrossRestarts}`,
    `probes (calls whose path could meet a pending unknown's outside the envelope): sent ${report.probes.sent}, refused ${byCode(report.probes.refused)}, sent to the arm ${report.probes.accepted}, otherwise answered ${report.probes.other}, none found ${report.probes.notFound}`,
    `effects: motion starts ${report.tally.motionStarts}, reached ${report.tally.reached}, halted by the watchdog ${report.tally.watchdogStops}, voided ${report.tally.voided}, duplicate MOVEs refused by the device ${report.tally.duplicateRefused}`,
    `link: MOVE re-sends by the bridge ${report.moveResends}, repeated MOVEs answered from the device's reply cache ${report.moveRepeatsAnsweredFromCache}${report.extraTurns ? ` (after ${report.extraTurns} extra turns without kills)` : ""}`,
    `accepted: done that never ran (no motion_start, says so) ${report.tally.doneNeverRan}, failed by a fault at start (nothing moved) ${report.tally.failedFaultedAtStart}, same-args re-sends of never-recorded calls refused on their own merits ${byCode(report.tally.freshRefusals)}`,
    `refused at admission (first answer): ${byCode(report.refusedAtAdmission)}`,
    `restart → ready (${report.restartToReadyMs.length} restarts${report.startRetries ? `, ${report.startRetries} retried` : ""}): p50 ${ms(ready.p50)}, p95 ${ms(ready.p95)}, max ${ms(ready.max)}`,
    `paging: rows GET /v1/actions skipped (found by id) ${report.skippedByPaging.length}${report.skippedByPaging.length ? `: ${report.skippedByPaging.slice(0, 5).join(", ")}` : ""}`,
    "invariants:",
    ...INVARIANTS.map((name) => `  ${String(report.verdict[name].length).padStart(4)}  ${INVARIANT_LABELS[name]}`),
  ];
  for (const name of INVARIANTS) {
    for (const v of report.verdict[name].slice(0, 10))
      lines.push(`  ${name}: ${v.callId ?? "-"} ${v.actionId ?? "-"}: ${v.detail}`);
  }
  lines.push(
    `wall ${(report.wallMs / 1000).toFixed(1)} s; logs and ledger in ${report.dir}; sim: armbridge-sim ${report.simArgs.slice(1).join(" ")}`,
  );
  return lines.join("\n");
}

/** `0`, or `N (CODE n, ...)`. */
function byCode(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts).sort(([a], [b]) => a.localeCompare(b));
  const total = entries.reduce((n, [, c]) => n + c, 0);
  return total === 0 ? "0" : `${total} (${entries.map(([code, n]) => `${code} ${n}`).join(", ")})`;
}

/** Total violations over every invariant. */
export function violationCount(report: CrashLoopReport): number {
  return INVARIANTS.reduce((n, name) => n + report.verdict[name].length, 0);
}
