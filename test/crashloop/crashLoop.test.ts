import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatCrashLoopReport } from "../../bench/crashloop/formatCrashLoopReport.js";
import { INVARIANTS } from "../../bench/crashloop/judgeCrashLoop.js";
import { runCrashLoop } from "../../bench/crashloop/runCrashLoop.js";
import { killLiveServeChildren } from "../../bench/crashloop/ServeChild.js";

/**
 * The short crash loop (about 20 kills) that CI runs; `npm run crashloop --
 * --kills 200` runs the same harness at any length. `armbridge serve` and
 * firmware-sim run from dist/ (`npm run build` first). CRASHLOOP_SEED picks
 * another seed; the seed is printed. Wire faults shift with timing (see
 * firmware-sim/faults.ts), so a seed reproduces the harness's choices and the
 * device's draws, not every dropped frame.
 */
const SEED = Number(process.env.CRASHLOOP_SEED ?? 20261201);
const KILLS = 20;
let dir: string | undefined;
let failed = false;

afterEach(() => {
  killLiveServeChildren();
  // Kept when the test failed: the effects log, both logs and the ledger are the evidence.
  if (dir && process.env.CRASHLOOP_KEEP !== "1" && !failed) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("crash loop: serve SIGKILLed at seeded moments and restarted on the same data dir", () => {
  it(`seed ${SEED}, ${KILLS} kills: no duplicate start, no overlap, no motion without a row, nothing left started, done only when reached, failed only when nothing moved, re-sent ids answered from the record, no accepted path meeting an unsettled one's outside the envelope`, async () => {
    dir = mkdtempSync(join(tmpdir(), `armbridge-crashloop-test-${SEED}-`));
    failed = true;
    const report = await runCrashLoop({ kills: KILLS, seed: SEED, dir, watchdogEvery: 10 });
    const text = formatCrashLoopReport(report);
    console.log(`[crashloop] CRASHLOOP_SEED=${SEED}\n${text}`);

    for (const name of INVARIANTS)
      expect(
        report.verdict[name].map((v) => `${v.callId} ${v.actionId}: ${v.detail}`),
        `${name} (seed ${SEED}; see ${dir})`,
      ).toEqual([]);
    // The loop must have reached the paths it is about, or it proves little.
    expect(report.restartToReadyMs).toHaveLength(KILLS);
    expect(report.answersLost, "answers lost to kills").toBeGreaterThan(0);
    expect(report.resends.ofLostAnswers, "lost answers re-sent").toBeGreaterThan(0);
    expect(report.resends.otherArgs, "other-args re-sends").toBeGreaterThan(0);
    expect(report.downPastWatchdog, "kills that stayed down past the watchdog").toBeGreaterThan(0);
    expect(report.tally.watchdogStops, "motions halted by the watchdog").toBeGreaterThan(0);
    expect(report.operatorConfirms, "unknowns confirmed by the operator path").toBeGreaterThan(0);
    // Unknowns pending across restarts, probed with calls whose paths could meet theirs outside the envelope: every one refused.
    expect(report.unknownsHeldAcrossRestarts, "unknowns left pending across a restart").toBeGreaterThan(0);
    expect(report.probes.sent, "probes of pending unknowns").toBeGreaterThan(0);
    expect(report.probes, "probes: all refused by the envelope, none sent to the arm").toMatchObject({
      accepted: 0,
      other: 0,
      refused: { ARMB_ERR_ENVELOPE_VIOLATION: report.probes.sent },
    });
    expect(report.moveRepeatsAnsweredFromCache, "re-sent MOVEs the device had already acted on").toBeGreaterThan(0);
    // Calls refused before they reach the motion path (envelope, min_speed) test nothing the loop is about.
    const refused = Object.values(report.refusedAtAdmission).reduce((n, c) => n + c, 0);
    expect(refused, `calls refused at admission: ${JSON.stringify(report.refusedAtAdmission)}`).toBeLessThanOrEqual(
      Math.ceil(report.calls * 0.05),
    );
    failed = false;
  }, 420_000);
});
