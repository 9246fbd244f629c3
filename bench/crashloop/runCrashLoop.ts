import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { motionIntervals, quantile, type EffectLine } from "../../firmware-sim/effectsJudge.js";
import { spawnSimulator, type SimChild } from "../../firmware-sim/spawnSimulator.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { mulberry32 } from "../../src/random/mulberry32.js";
import { BridgeSession, wire } from "./BridgeSession.js";
import { CallPlanner } from "./CallPlanner.js";
import { CrashLoopProbes, type ProbeTally } from "./CrashLoopProbes.js";
import { EffectsTail } from "./EffectsTail.js";
import { findProbeScenario, type ProbeScenario } from "./findProbeScenario.js";
import {
  judgeCrashLoop,
  rowsByCall,
  type CrashLoopTally,
  type CrashLoopVerdict,
  type ResendRecord,
} from "./judgeCrashLoop.js";
import { OperatorDesk } from "./OperatorDesk.js";
import { readLedger } from "./readLedger.js";
import { resendEarlier } from "./resendEarlier.js";
import { KILL_MOMENTS, setUpKillTurn, type KillMoment } from "./setUpKillTurn.js";

export { KILL_MOMENTS, type KillMoment } from "./setUpKillTurn.js";

/** firmware-sim's seeded faults for the run (armbridge-sim flags). */
export interface CrashLoopFaults {
  readonly dropRate: number;
  readonly corruptRate: number;
  readonly failRate: number;
  readonly stallRate: number;
  readonly freezeRate: number;
  readonly rebootRate: number;
  /** Replies that leave after the bridge's ACK timeout: it re-sends a MOVE the device already acted on. */
  readonly lateReplyRate: number;
}

export const DEFAULT_CRASHLOOP_FAULTS: CrashLoopFaults = {
  dropRate: 0.04,
  corruptRate: 0.02,
  failRate: 0.05,
  stallRate: 0.04,
  freezeRate: 0.03,
  rebootRate: 0,
  lateReplyRate: 0.12,
};

export interface CrashLoopOptions {
  readonly kills: number;
  /** Seeds firmware-sim (its faults and motion draws) and every choice of the harness (what to call, when to kill). */
  readonly seed: number;
  /** Work folder: effects.jsonl, sim.log, bridge.log and the bridge's data dir (kept for reading afterwards). */
  readonly dir: string;
  readonly faults?: CrashLoopFaults;
  /** firmware-sim's host-silence watchdog; a normal restart must come back well within it. */
  readonly watchdogMs?: number;
  /** Every this many kills the bridge stays down until the watchdog has halted the motion under way. */
  readonly watchdogEvery?: number;
  /** One line per kill and per phase; silent when undefined. */
  readonly progress?: ((line: string) => void) | undefined;
  /**
   * Leave unknown motions unconfirmed for one or two kills, so they are still
   * unsettled when the bridge restarts, and probe each with a call whose path
   * could meet its own outside the envelope (default true).
   */
  readonly holdUnknowns?: boolean;
}

export interface CrashLoopReport {
  readonly seed: number;
  readonly kills: number;
  readonly killsByMoment: Readonly<Record<KillMoment, number>>;
  /** Kills after which the bridge stayed down until the watchdog halted a motion (seen in the effects log). */
  readonly downPastWatchdog: number;
  /** Calls sent (batches' entries, re-sends included). */
  readonly calls: number;
  /** Calls whose answer was lost to a kill. */
  readonly answersLost: number;
  readonly resends: { readonly sameArgs: number; readonly otherArgs: number; readonly ofLostAnswers: number };
  /** Unknown rows an operator confirmed through POST /v1/actions/:id/confirm. */
  readonly operatorConfirms: number;
  /** Unknown motions left unconfirmed across at least one restart. */
  readonly unknownsHeldAcrossRestarts: number;
  /** Calls aimed to meet a held unknown's path outside the envelope, and what the bridge did with them. */
  readonly probes: ProbeTally;
  /** Spawn → ready line of every start after a kill (the final one included), ms. */
  readonly restartToReadyMs: readonly number[];
  /** Restarts that had to be tried again (serve exited before ready). */
  readonly startRetries: number;
  /** MOVE frames the bridge re-sent for want of a reply (its debug log). */
  readonly moveResends: number;
  /** Repeated MOVE frames firmware-sim answered from its reply cache, executing nothing (its debug log). */
  readonly moveRepeatsAnsweredFromCache: number;
  /** Calls refused at admission on their first answer, by error code, probes aside (the harness aims inside the envelope and above min_speed, so few). */
  readonly refusedAtAdmission: Readonly<Record<string, number>>;
  /** Answered turns after the last kill, run only until a re-sent MOVE reached a device that had acted on it. */
  readonly extraTurns: number;
  /** Rows GET /v1/actions paging did not return but GET /v1/actions/:id did. */
  readonly skippedByPaging: readonly string[];
  readonly verdict: CrashLoopVerdict;
  readonly tally: CrashLoopTally;
  readonly simArgs: readonly string[];
  readonly wallMs: number;
  readonly dir: string;
}

const READY_TIMEOUT_MS = 60_000;

/**
 * The crash loop: `armbridge serve` as a child process on one long-lived
 * firmware-sim (seeded faults), SIGKILLed at seeded moments — before a
 * request, while calls queue on a joint, mid-motion, mid-observation — and
 * restarted on the same data dir; earlier call ids are sent again (same
 * arguments → the recorded result; other arguments → rejected), those whose
 * answers a kill lost included. Every so often the bridge stays down until
 * the simulator's watchdog halts the motion, so the operator path runs
 * (unknown → confirm through the API); unknown motions are left pending
 * across a restart or two first, and probed with calls whose paths could meet
 * theirs outside the envelope. The run is judged only by the effects log and
 * the ledger read back through the API (judgeCrashLoop).
 *
 * The parts: CallPlanner (what to ask), BridgeSession (the serve child and
 * its calls), OperatorDesk (confirming and holding unknowns), CrashLoopProbes,
 * setUpKillTurn (each kill moment), resendEarlier.
 *
 * Shared by the CI test (test/crashloop/crashLoop.test.ts) and
 * `npm run crashloop` (bench/crashloop.ts).
 */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const began = performance.now();
  const faults = options.faults ?? DEFAULT_CRASHLOOP_FAULTS;
  const watchdogMs = options.watchdogMs ?? 3000;
  const say = options.progress ?? (() => undefined);
  mkdirSync(options.dir, { recursive: true });
  const effectsLog = join(options.dir, "effects.jsonl");
  const bridgeLog = join(options.dir, "bridge.log");
  const simLog = join(options.dir, "sim.log");
  const sim: SimChild = await spawnSimulator({
    link: "tcp",
    seed: options.seed,
    effectsLog,
    logFile: simLog,
    flags: simFlagsOf(faults, watchdogMs),
    logLevel: "debug",
  });
  const rig = crashLoopRig(options, sim, { effectsLog, bridgeLog, say });
  try {
    await rig.session.start();
    rig.session.restartToReadyMs.length = 0; // the first start is not a restart
    const turns = await killAndRestart(rig, options, watchdogMs, say);
    await finalTurns(rig, simLog);
    return await judgeAndReport(rig, options, { ...turns, began, simArgs: sim.args, simLog, bridgeLog });
  } finally {
    await rig.session.kill();
    await sim.stop(3000);
  }
}

/** Everything one run shares: the config, the seeded choices, the bridge, the operator, the probes, the effects log. */
interface CrashLoopRig {
  readonly config: ReturnType<typeof loadConfig>;
  readonly random: () => number;
  readonly effects: EffectsTail;
  readonly session: BridgeSession;
  readonly planner: CallPlanner;
  readonly desk: OperatorDesk;
  readonly probes: CrashLoopProbes;
  readonly resends: ResendRecord[];
  /** Where watchdog kills stage their long motion so a probe can meet it. */
  readonly scenario: ProbeScenario | undefined;
  readonly waitFor: (predicate: (events: readonly EffectLine[]) => boolean, timeoutMs: number) => Promise<boolean>;
  /** Restarts of the bridge so far. */
  restarts: number;
  /** Turns without kills after the last one (see finalTurns). */
  extraTurns: number;
}

function crashLoopRig(
  options: CrashLoopOptions,
  sim: SimChild,
  files: { effectsLog: string; bridgeLog: string; say: (line: string) => void },
): CrashLoopRig {
  const config = loadConfig();
  const random = mulberry32(options.seed);
  const effects = new EffectsTail(files.effectsLog);
  const waitFor = async (
    predicate: (events: readonly EffectLine[]) => boolean,
    timeoutMs: number,
  ): Promise<boolean> => {
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      if (predicate(effects.read())) return true;
      await sleep(5);
    }
    return predicate(effects.read());
  };
  const session = new BridgeSession({
    link: sim.link,
    dataDir: join(options.dir, "data"),
    token: randomBytes(24).toString("hex"),
    logFile: files.bridgeLog,
    readyTimeoutMs: READY_TIMEOUT_MS,
    say: files.say,
  });
  const desk = new OperatorDesk({
    config,
    session,
    effects,
    random,
    waitFor,
    holdUnknowns: options.holdUnknowns ?? true,
  });
  const planner = new CallPlanner({
    config,
    seed: options.seed,
    random,
    effects,
    heldJoints: () => desk.heldJoints(),
    inFlight: () => desk.inFlight(),
  });
  const scenario = (options.holdUnknowns ?? true) ? findProbeScenario(config, random) : undefined;
  if ((options.holdUnknowns ?? true) && !scenario)
    files.say("no probe scenario found for this arm: watchdog kills leave unknowns where probes may not meet them");
  const probes = new CrashLoopProbes({ config, planner, session, desk, random, scenario });
  return {
    config,
    random,
    effects,
    session,
    planner,
    desk,
    probes,
    resends: [],
    scenario,
    waitFor,
    restarts: 0,
    extraTurns: 0,
  };
}

/** The kills: before each, settle (or hold) unknowns, probe held ones, re-send earlier ids; then one turn and the kill. */
async function killAndRestart(
  rig: CrashLoopRig,
  options: CrashLoopOptions,
  watchdogMs: number,
  say: (line: string) => void,
): Promise<{ killsByMoment: Record<KillMoment, number>; downPastWatchdog: number }> {
  const { planner, session, desk, random } = rig;
  const watchdogEvery = options.watchdogEvery ?? 10;
  const killsByMoment: Record<KillMoment, number> = { before_request: 0, queued: 0, mid_motion: 0, mid_observation: 0 };
  let downPastWatchdog = 0;
  let watchdogDue = false;
  for (let k = 0; k < options.kills; k++) {
    planner.newTurn();
    await desk.settle({ kill: k });
    await rig.probes.probeHeld(rig.restarts);
    await resendEarlier(planner, session, random, rig.resends);
    await desk.settle({ kill: k });
    // Now and then a turn that is answered in full, so later re-sends have recorded results to hit.
    if (random() < 0.35) {
      planner.newTurn();
      const records = planner
        .distinctJoints(1 + Math.floor(random() * 2))
        .map((j) => planner.newCall([j], planner.between(150, 450), random() < 0.15 ? "at_target" : "away"));
      session.absorb(records, await session.post(records.map(wire), 15_000));
      await desk.settle({ kill: k });
    }
    planner.newTurn();

    // Due every `watchdogEvery` kills, and again at the next kill until a motion really was halted by it
    // (a seeded fault may end the long motion first).
    if (watchdogEvery > 0 && k % watchdogEvery === Math.min(3, watchdogEvery - 1)) watchdogDue = true;
    const pastWatchdog = watchdogDue;
    const moment: KillMoment = pastWatchdog ? "mid_motion" : planner.pick(KILL_MOMENTS);
    killsByMoment[moment]++;
    const turn = await setUpKillTurn(moment, pastWatchdog, {
      config: rig.config,
      planner,
      session,
      desk,
      random,
      effects: () => rig.effects.read(),
      waitFor: rig.waitFor,
      watchdogMs,
      scenario: rig.scenario,
    });

    const killedAt = performance.now();
    await session.kill();
    if (turn.inFlight) session.absorb(turn.records, await turn.inFlight);
    const lostHere = turn.records.filter((r) => !r.answered).length;
    let note = "";
    if (pastWatchdog && turn.watched !== undefined) {
      const byWatchdog = await stayDownUntilEnded(rig, turn.watched, watchdogMs);
      if (byWatchdog.halted) {
        downPastWatchdog++;
        watchdogDue = false;
      }
      note = byWatchdog.halted
        ? `, stayed down until the ${watchdogMs} ms watchdog halted the motion (${Math.round(performance.now() - killedAt)} ms after the kill)`
        : `, stayed down but the motion ended ${byWatchdog.how}, not by the watchdog`;
    }
    await session.start();
    rig.restarts++;
    desk.noteRestart();
    const ids = turn.records.length ? ` [${turn.records.map((r) => r.id).join(" ")}]` : "";
    const held = desk.held.size ? `; ${desk.held.size} unknown(s) held` : "";
    say(
      `kill ${k + 1}/${options.kills} ${moment}${note}: ${turn.records.length} call(s) in the turn${ids}, ${lostHere} answer(s) lost; restart → ready ${Math.round(session.readyMs)} ms${held}`,
    );
  }
  return { killsByMoment, downPastWatchdog };
}

/** Stays down until the watched motion has ended, then reads from the effects log (not assumes) whether the watchdog ended it. */
async function stayDownUntilEnded(
  rig: CrashLoopRig,
  watched: string,
  watchdogMs: number,
): Promise<{ halted: boolean; how: string }> {
  await rig.waitFor(
    (events) => !motionIntervals(events).some((m) => m.actionId === watched && m.end === Infinity),
    watchdogMs + 5000,
  );
  const end = rig.effects.read().find((e) => e.event === "motion_end" && e.action_id === watched) as
    (EffectLine & { detail?: string }) | undefined;
  const halted = end?.outcome === "stopped" && /watchdog/.test(end.detail ?? "");
  return { halted, how: end ? `${end.outcome} (${end.detail ?? ""})` : "not at all" };
}

/**
 * After the last restart: held unknowns probed once more, then turns without
 * kills until a re-sent MOVE reached a device that had acted on it (which
 * replies a seed makes late shifts with timing, so a short run may not have
 * had one; bounded), every lost answer re-sent once, every unknown confirmed.
 */
async function finalTurns(rig: CrashLoopRig, simLog: string): Promise<void> {
  const { planner, session, desk } = rig;
  await rig.probes.probeHeld(rig.restarts);
  await desk.settle({ kill: Infinity, final: true });
  for (let extra = 0; extra < 40 && repeatsAnswered(simLog) === 0; extra++) {
    planner.newTurn();
    const records = planner.distinctJoints(2).map((j) => planner.newCall([j], planner.between(400, 800)));
    session.absorb(records, await session.post(records.map(wire), 15_000));
    await desk.settle({ kill: Infinity, final: true });
    rig.extraTurns = extra + 1;
  }
  while ([...planner.calls.values()].some((c) => !c.answered && !c.resentAfterLoss)) {
    await resendEarlier(planner, session, rig.random, rig.resends);
    await desk.settle({ kill: Infinity, final: true });
  }
  await rig.waitFor((events) => motionIntervals(events).every((m) => m.end !== Infinity), 30_000);
  await desk.settle({ kill: Infinity, final: true });
}

/** Reads the whole ledger back through the API, judges the run and stops the bridge cleanly. */
async function judgeAndReport(
  rig: CrashLoopRig,
  options: CrashLoopOptions,
  run: {
    killsByMoment: Record<KillMoment, number>;
    downPastWatchdog: number;
    began: number;
    simArgs: readonly string[];
    simLog: string;
    bridgeLog: string;
  },
): Promise<CrashLoopReport> {
  const { session, desk, resends } = rig;
  const events = rig.effects.read();
  const knownIds = new Set<string>();
  for (const e of events) if (e.action_id !== null) knownIds.add(e.action_id);
  for (const c of rig.planner.calls.values()) if (c.knownActionId) knownIds.add(c.knownActionId);
  const ledger = await readLedger(session.api(), knownIds);
  const { verdict, tally } = judgeCrashLoop(events, ledger.rows, resends, {
    rowsOfCall: rowsByCall(ledger.rows),
    config: rig.config,
  });
  await session.stop(10_000);
  return {
    seed: options.seed,
    kills: options.kills,
    killsByMoment: run.killsByMoment,
    downPastWatchdog: run.downPastWatchdog,
    calls: session.sent,
    answersLost: session.answersLost,
    resends: {
      sameArgs: resends.filter((r) => r.kind === "same_args").length,
      otherArgs: resends.filter((r) => r.kind === "other_args").length,
      ofLostAnswers: resends.filter((r) => r.kind === "same_args" && r.knownActionId === undefined).length,
    },
    operatorConfirms: desk.confirms,
    unknownsHeldAcrossRestarts: desk.heldAcrossRestarts,
    probes: rig.probes.tally(),
    restartToReadyMs: session.restartToReadyMs,
    startRetries: session.startRetries,
    moveResends: countLines(run.bridgeLog, (l) => l.includes('"op":"MOVE"') && l.includes("re-sending the same frame")),
    moveRepeatsAnsweredFromCache: repeatsAnswered(run.simLog),
    refusedAtAdmission: session.refusedAtAdmission,
    extraTurns: rig.extraTurns,
    skippedByPaging: ledger.skippedByPaging,
    verdict,
    tally,
    simArgs: run.simArgs,
    wallMs: performance.now() - run.began,
    dir: options.dir,
  };
}

function simFlagsOf(faults: CrashLoopFaults, watchdogMs: number): string[] {
  return [
    "--drop-rate",
    String(faults.dropRate),
    "--corrupt-rate",
    String(faults.corruptRate),
    "--fail-rate",
    String(faults.failRate),
    "--stall-rate",
    String(faults.stallRate),
    "--freeze-rate",
    String(faults.freezeRate),
    "--reboot-rate",
    String(faults.rebootRate),
    "--late-reply-rate",
    String(faults.lateReplyRate),
    "--watchdog-ms",
    String(watchdogMs),
  ];
}

/** Repeated MOVE frames firmware-sim answered from its reply cache (its debug log). */
function repeatsAnswered(simLog: string): number {
  return countLines(simLog, (l) => l.includes('"op":"MOVE"') && l.includes("repeated frame"));
}

function countLines(path: string, match: (line: string) => boolean): number {
  try {
    return readFileSync(path, "utf8").split("\n").filter(match).length;
  } catch {
    return 0;
  }
}

/** p50 / p95 / max of the restart → ready times. */
export function readyFigures(report: Pick<CrashLoopReport, "restartToReadyMs">): {
  p50: number;
  p95: number;
  max: number;
} {
  const ms = report.restartToReadyMs;
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: ms.length ? Math.max(...ms) : NaN };
}
