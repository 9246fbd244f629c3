/**
 * npm run bench:seed — the seed article's experiments (E1, the timeout sweep,
 * E2, E3), run against firmware-sim as a separate process over a real serial
 * link (a socat PTY when socat is installed, else TCP), with a fixed seed.
 *
 * Every count is judged by the simulator's effects log (ground truth), not by
 * what the bridge reports. Each experiment gets a fresh simulator with the
 * same seed, so it sees the same motion times and failures in the same order:
 * same seed → same counts (timings vary a little with the machine).
 *
 * Prints figures and one verdict per target; asserts nothing (benchmarks are
 * scripts). BENCH_SEED, BENCH_LINK=pty|tcp and BENCH_KEEP=1 (keep the temp
 * folders with effects logs and both processes' logs) change the run.
 */
import { cpus } from "node:os";
import { socatOnPath } from "../firmware-sim/simOptions.js";
import { removeLiveDirs, startRig, type BenchRig, type RigOptions } from "./seed/BenchRig.js";
import {
  classifyTimeouts,
  duplicateExecutions,
  groundTruthOf,
  motionEndTimes,
  motionsLongerThan,
  overlapsIn,
  quantile,
} from "../firmware-sim/effectsJudge.js";
import { runE1 } from "./seed/runE1.js";
import { runNaiveRetry, type NaivePolicy } from "./seed/runNaiveRetry.js";
import { runObservedTrials } from "./seed/runObservedTrials.js";
import { killLiveSims, stopLiveSims } from "./seed/SimProcess.js";
import { formatTable, ms, pct } from "./seed/table.js";

const SEED = Number(process.env.BENCH_SEED ?? 42);
/** Median 150 ms and σ 0.5: fires about as often as the seed's heavy-tailed distribution at 100/200/300 ms. */
const LOGNORMAL = "lognormal:150:0.5";
const FAIL_RATE = "0.05";
const SWEEP_TRIALS = 50;
const E_TRIALS = 120;
const E_TIMEOUT_MS = 200;
/** The seed's figures, printed beside ours. */
const SEED_SWEEP: Record<number, string> = {
  100: "34/50 fired, 33 succeeded (97.1%)",
  200: "11/50 fired, 11 succeeded (100%)",
  300: "5/50 fired, 5 succeeded (100%)",
};
const SEED_EXTRA_WAIT_MS = 67;

function pickLink(): { link: "pty" | "tcp"; why: string } {
  const asked = process.env.BENCH_LINK;
  if (asked === "pty" || asked === "tcp") return { link: asked, why: `BENCH_LINK=${asked}` };
  return socatOnPath() ? { link: "pty", why: "socat found" } : { link: "tcp", why: "socat not found" };
}

async function withRig<T>(options: RigOptions, body: (rig: BenchRig) => Promise<T>): Promise<T> {
  const rig = await startRig(options);
  try {
    return await body(rig);
  } finally {
    await rig.close();
  }
}

async function main(): Promise<void> {
  const { link, why } = pickLink();
  const started = performance.now();
  console.log(
    `seed bench: firmware-sim over ${link === "pty" ? "a PTY via socat" : "TCP"} (${why}), seed ${SEED}, ${cpus().length} cores, node ${process.version}, ${new Date().toISOString()}`,
  );
  const common = { link, seed: SEED };

  // ── E1 ────────────────────────────────────────────────────────────────
  const e1 = await withRig(
    { ...common, name: "e1", simFlags: ["--motion-time", "fixed:300"], moveTimeoutMs: 5000 },
    runE1,
  );
  console.log(
    "\nE1  four 300 ms moves (--motion-time fixed:300); seed: sequential 1203.3 ms / 0 overlaps, parallel 301.3 ms / 3 overlaps",
  );
  console.log(
    formatTable([
      ["", "wall", "effects", "overlaps", "calls ended"],
      ...e1.map((r) => [r.label, ms(r.wallMs), String(r.effects), String(r.overlaps), r.outcomes]),
    ]),
  );

  // ── Timeout sweep ─────────────────────────────────────────────────────
  const sweepRows: string[][] = [];
  for (const timeoutMs of [100, 200, 300]) {
    const { trials, effects } = await withRig(
      {
        ...common,
        name: `sweep${timeoutMs}`,
        simFlags: ["--motion-time", LOGNORMAL, "--fail-rate", FAIL_RATE],
        moveTimeoutMs: timeoutMs,
      },
      async (rig) => {
        const trials = await runObservedTrials(rig, SWEEP_TRIALS, `sweep${timeoutMs}`);
        return { trials, effects: rig.effects() };
      },
    );
    const c = classifyTimeouts(effects, trials);
    const genuine = trials.filter((t) => groundTruthOf(effects, t.actionId) !== "reached").length;
    const longer = motionsLongerThan(
      effects,
      trials.map((t) => t.actionId),
      timeoutMs,
    );
    sweepRows.push([
      `${timeoutMs} ms`,
      `${c.fired}/${c.trials}`,
      pct(c.fired, c.trials),
      String(longer),
      String(c.firedButSucceeded),
      pct(c.firedButSucceeded, c.fired),
      String(genuine),
      SEED_SWEEP[timeoutMs] ?? "",
    ]);
  }
  console.log(`\nTimeout sweep  ${SWEEP_TRIALS} trials each, --motion-time ${LOGNORMAL} --fail-rate ${FAIL_RATE}`);
  console.log(
    formatTable([
      ["timeout", "fired", "", "motions > timeout", "of those fired, succeeded", "", "genuine failures", "seed"],
      ...sweepRows,
    ]),
  );

  // ── E2: the naive retry baseline (bench only) ─────────────────────────
  const e2Rows: string[][] = [];
  for (const policy of [
    { label: "immediate re-send", timeoutMs: E_TIMEOUT_MS, backoffMs: 0, maxAttempts: 3 },
    { label: "re-send after 100 ms", timeoutMs: E_TIMEOUT_MS, backoffMs: 100, maxAttempts: 3 },
  ] satisfies (NaivePolicy & { label: string })[]) {
    const { trials, effects } = await withRig(
      {
        ...common,
        name: "e2",
        simFlags: ["--motion-time", LOGNORMAL, "--fail-rate", FAIL_RATE],
        moveTimeoutMs: E_TIMEOUT_MS,
      },
      async (rig) => {
        const trials = await runNaiveRetry(rig.bridge.transport, E_TRIALS, policy);
        return { trials, effects: rig.effects() };
      },
    );
    const fired = trials.filter((t) => t.fired);
    const duplicates = duplicateExecutions(
      effects,
      trials.map((t) => t.actionIds),
    );
    const firedSucceeded = fired.filter((t) => groundTruthOf(effects, t.actionIds[0] ?? "") === "reached").length;
    const resends = trials.reduce((n, t) => n + t.actionIds.length - 1, 0);
    const busy = trials.reduce((n, t) => n + t.refusedBusy, 0);
    const longer = motionsLongerThan(
      effects,
      trials.flatMap((t) => t.actionIds.slice(0, 1)),
      E_TIMEOUT_MS,
    );
    e2Rows.push([
      policy.label,
      `${fired.length}/${trials.length}`,
      String(longer),
      String(firedSucceeded),
      String(resends),
      String(busy),
      String(duplicates),
      String(overlapsIn(effects)),
    ]);
  }
  console.log(
    `\nE2  naive retry-on-timeout (new action id per attempt, up to 3 attempts; baseline in the bench only), ${E_TRIALS} trials, timeout ${E_TIMEOUT_MS} ms`,
  );
  console.log("    seed: fired=30 (25.0%) duplicate executions=30 had already succeeded=30");
  console.log(
    formatTable([
      [
        "policy",
        "fired",
        "motions > timeout",
        "had already succeeded",
        "re-sends",
        "refused BUSY by device",
        "duplicate executions",
        "overlaps",
      ],
      ...e2Rows,
    ]),
  );

  // ── E3: armbridge's observe policy ───────────────────────────────────
  const e3 = await withRig(
    {
      ...common,
      name: "e3",
      simFlags: ["--motion-time", LOGNORMAL, "--fail-rate", FAIL_RATE],
      moveTimeoutMs: E_TIMEOUT_MS,
    },
    async (rig) => {
      const trials = await runObservedTrials(rig, E_TRIALS, "e3");
      return { trials, effects: rig.effects() };
    },
  );
  const fired = e3.trials.filter((t) => t.timedOut);
  const byObservation = fired.filter((t) => t.settledBy === "observation").length;
  const duplicates = duplicateExecutions(
    e3.effects,
    e3.trials.map((t) => [t.actionId]),
  );
  const unknowns = e3.trials.filter((t) => t.status === "unknown").length;
  const ends = motionEndTimes(e3.effects);
  const extraWait = fired.flatMap((t) => (t.timedOutAt === undefined ? [] : [t.settledAt - t.timedOutAt]));
  const stillMoving = fired.flatMap((t) => {
    const end = ends.get(t.actionId);
    return t.timedOutAt === undefined || end === undefined ? [] : [Math.max(0, end - t.timedOutAt)];
  });
  const lag = fired.flatMap((t) => {
    const end = ends.get(t.actionId);
    return end === undefined ? [] : [t.settledAt - end];
  });
  const starts = new Map(
    e3.effects.filter((e) => e.event === "motion_start" && e.action_id !== null).map((e) => [e.action_id ?? "", e.t]),
  );
  const sendToStart = e3.trials.flatMap((t) => {
    const s0 = starts.get(t.actionId);
    return t.startedAt === undefined || s0 === undefined ? [] : [s0 - t.startedAt];
  });
  const endToStatus = fired.flatMap((t) => {
    const end = ends.get(t.actionId);
    return end === undefined || t.endSeenAt === undefined ? [] : [t.endSeenAt - end];
  });
  const statusToSettled = fired.flatMap((t) => (t.endSeenAt === undefined ? [] : [t.settledAt - t.endSeenAt]));
  const endedBeforeTimeout = fired.filter((t) => {
    const end = ends.get(t.actionId);
    return t.timedOutAt !== undefined && end !== undefined && end <= t.timedOutAt;
  }).length;
  const statuses = new Map<string, number>();
  for (const t of e3.trials) statuses.set(t.status, (statuses.get(t.status) ?? 0) + 1);
  const e3c = classifyTimeouts(e3.effects, e3.trials);
  console.log(
    `\nE3  armbridge (timeout → observe, never re-send), same ${E_TRIALS} trials, timeout ${E_TIMEOUT_MS} ms`,
  );
  console.log(`    seed: fired=30 settled by observation=30 duplicate executions=0 median extra wait=67.0ms unknown=0`);
  console.log(
    formatTable([
      ["fired", "motions > timeout", "settled by observation", "duplicates", "unknowns", "results"],
      [
        `${fired.length}/${e3.trials.length}`,
        String(
          motionsLongerThan(
            e3.effects,
            e3.trials.map((t) => t.actionId),
            E_TIMEOUT_MS,
          ),
        ),
        `${byObservation}/${fired.length}`,
        String(duplicates),
        String(unknowns),
        [...statuses].map(([k, n]) => `${k}×${n}`).join(" "),
      ],
    ]),
  );
  console.log(
    formatTable([
      ["after the timeout fired", "median", "p95", "max"],
      [
        "extra wait (timed_out → settled)",
        ms(quantile(extraWait, 0.5)),
        ms(quantile(extraWait, 0.95)),
        ms(quantile(extraWait, 1)),
      ],
      [
        "  of which the arm was still moving (→ motion_end)",
        ms(quantile(stillMoving, 0.5)),
        ms(quantile(stillMoving, 0.95)),
        ms(quantile(stillMoving, 1)),
      ],
      ["settlement lag (motion_end → settled)", ms(quantile(lag, 0.5)), ms(quantile(lag, 0.95)), ms(quantile(lag, 1))],
      [
        "  motion_end → first STATUS saying so arrives",
        ms(quantile(endToStatus, 0.5)),
        ms(quantile(endToStatus, 0.95)),
        ms(quantile(endToStatus, 1)),
      ],
      [
        "  that STATUS → settled (judge, ledger, event)",
        ms(quantile(statusToSettled, 0.5)),
        ms(quantile(statusToSettled, 0.95)),
        ms(quantile(statusToSettled, 1)),
      ],
      [
        "all calls: MOVE leaves → motion_start (link + device)",
        ms(quantile(sendToStart, 0.5)),
        ms(quantile(sendToStart, 0.95)),
        ms(quantile(sendToStart, 1)),
      ],
    ]),
  );
  console.log(
    `    fired timeouts whose motion had in fact succeeded: ${e3c.firedButSucceeded}/${e3c.fired}; fired after the motion had already ended (its completion still on the way, ≤ 1 status period): ${endedBeforeTimeout}`,
  );

  // ── Verdicts ──────────────────────────────────────────────────────────
  const lockedOverlaps = e1.filter((r) => r.label.includes("via armbridge")).reduce((n, r) => n + r.overlaps, 0);
  const medianWait = quantile(extraWait, 0.5);
  const medianLag = quantile(lag, 0.5);
  const verdict = (ok: boolean, text: string): void => console.log(`${ok ? "PASS" : "MISS"}  ${text}`);
  console.log("\nTargets");
  verdict(duplicates === 0, `duplicates 0 — E3 duplicate executions: ${duplicates}`);
  verdict(lockedOverlaps === 0, `overlaps 0 — E1 through armbridge: ${lockedOverlaps}`);
  // The seed polled every 5 ms, so its lag after a motion's real end averaged
  // 2.5 ms and reached 5 ms. That lag is the part observation controls; the
  // rest of the extra wait is the motion still running when the timeout fired.
  verdict(
    medianLag < 2.5 && quantile(lag, 0.95) < 5,
    `settled within milliseconds of the motion's real end, better than the seed's 5 ms poll (mean 2.5 ms) — median lag ${ms(medianLag)}, p95 ${ms(quantile(lag, 0.95))}`,
  );
  console.log(
    `info  median extra wait after a fired timeout ${ms(medianWait)} (seed ${SEED_EXTRA_WAIT_MS} ms): ${ms(quantile(stillMoving, 0.5))} of it the arm was still moving — ` +
      "a timeout fires mid-motion, and no observer can settle a motion before it ends",
  );
  verdict(unknowns === 0, `unknowns ~0 — ${unknowns}`);
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

let interrupted = false;
process.once("SIGINT", () => {
  interrupted = true;
  void stopLiveSims().finally(() => {
    removeLiveDirs();
    process.exit(130);
  });
});
process.once("exit", () => {
  killLiveSims();
  removeLiveDirs();
});

main().then(
  () => {
    if (!interrupted) process.exitCode = 0;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
