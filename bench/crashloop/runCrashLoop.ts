import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { groundTruthOf, motionIntervals, quantile, type EffectLine } from "../../firmware-sim/effectsJudge.js";
import { mulberry32 } from "../../src/random/mulberry32.js";
import { spawnSimulator, type SimChild } from "../../firmware-sim/spawnSimulator.js";
import type { JointConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import type { CallResult } from "../../src/executor/CallResult.js";
import { ApiClient, ApiError } from "../../src/surfaces/cli/apiClient.js";
import { resultOf, type FunctionResponse } from "../../src/surfaces/toFunctionResponse.js";
import { EffectsTail } from "./EffectsTail.js";
import { judgeCrashLoop, rowsByCall, type CrashLoopTally, type CrashLoopVerdict, type ResendRecord } from "./judgeCrashLoop.js";
import { readLedger } from "./readLedger.js";
import { ServeStartFailed, spawnServe, type ServeChild } from "./ServeChild.js";

/** Where in a call's life the bridge is killed. */
export const KILL_MOMENTS = ["before_request", "queued", "mid_motion", "mid_observation"] as const;
export type KillMoment = (typeof KILL_MOMENTS)[number];

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

export const DEFAULT_CRASHLOOP_FAULTS: CrashLoopFaults = { dropRate: 0.04, corruptRate: 0.02, failRate: 0.05, stallRate: 0.04, freezeRate: 0.03, rebootRate: 0, lateReplyRate: 0.12 };

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
  /** Spawn → ready line of every start after a kill (the final one included), ms. */
  readonly restartToReadyMs: readonly number[];
  /** Restarts that had to be tried again (serve exited before ready). */
  readonly startRetries: number;
  /** MOVE frames the bridge re-sent for want of a reply (its debug log). */
  readonly moveResends: number;
  /** Repeated MOVE frames firmware-sim answered from its reply cache, executing nothing (its debug log). */
  readonly moveRepeatsAnsweredFromCache: number;
  /** Calls refused at admission on their first answer, by error code (the harness aims inside the envelope and above min_speed, so few). */
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

interface CallRecord {
  readonly id: string;
  readonly args: { readonly positions: Readonly<Record<string, number>>; readonly speed: number };
  /** From any answer that carried one. */
  knownActionId: string | undefined;
  answered: boolean;
  resentAfterLoss: boolean;
}

type WireCall = { readonly id: string; readonly name: "move_joints"; readonly args: CallRecord["args"] };
type BatchOutcome = { readonly kind: "answered"; readonly results: readonly CallResult[] } | { readonly kind: "lost"; readonly reason: string };

const OPERATOR = "crashloop";
const READY_TIMEOUT_MS = 60_000;

/**
 * The crash loop: `armbridge serve` as a child process on one long-lived
 * firmware-sim (seeded faults), SIGKILLed at seeded moments — before a
 * request, while calls queue on a joint, mid-motion, mid-observation — and
 * restarted on the same data dir; earlier call ids are sent again (same
 * arguments → the recorded result; other arguments → rejected), those whose
 * answers a kill lost included. Every so often the bridge stays down until
 * the simulator's watchdog halts the motion, so the operator path runs
 * (unknown → confirm through the API). The run is judged only by the effects
 * log and the ledger read back through the API (judgeCrashLoop).
 *
 * Shared by the CI test (test/crashloop/crashLoop.test.ts) and
 * `npm run crashloop` (bench/crashloop.ts).
 */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const began = performance.now();
  const faults = options.faults ?? DEFAULT_CRASHLOOP_FAULTS;
  const watchdogMs = options.watchdogMs ?? 3000;
  const watchdogEvery = options.watchdogEvery ?? 10;
  const say = options.progress ?? (() => undefined);
  const random = mulberry32(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const between = (lo: number, hi: number): number => lo + random() * (hi - lo);

  mkdirSync(options.dir, { recursive: true });
  const effectsLog = join(options.dir, "effects.jsonl");
  const bridgeLog = join(options.dir, "bridge.log");
  const simLog = join(options.dir, "sim.log");
  const dataDir = join(options.dir, "data");
  const token = randomBytes(24).toString("hex");
  const config = loadConfig();
  const joints = config.arm.joints;
  const minSpeed = config.limits.minSpeed;
  const effects = new EffectsTail(effectsLog);

  const simFlags = [
    "--drop-rate", String(faults.dropRate),
    "--corrupt-rate", String(faults.corruptRate),
    "--fail-rate", String(faults.failRate),
    "--stall-rate", String(faults.stallRate),
    "--freeze-rate", String(faults.freezeRate),
    "--reboot-rate", String(faults.rebootRate),
    "--late-reply-rate", String(faults.lateReplyRate),
    "--watchdog-ms", String(watchdogMs),
  ];
  const sim: SimChild = await spawnSimulator({ link: "tcp", seed: options.seed, effectsLog, logFile: simLog, flags: simFlags, logLevel: "debug" });
  let bridge: ServeChild | undefined;

  const calls = new Map<string, CallRecord>();
  const resends: ResendRecord[] = [];
  const restartToReadyMs: number[] = [];
  const killsByMoment: Record<KillMoment, number> = { before_request: 0, queued: 0, mid_motion: 0, mid_observation: 0 };
  let sent = 0;
  let answersLost = 0;
  let operatorConfirms = 0;
  let startRetries = 0;
  let downPastWatchdog = 0;
  let nextCall = 0;
  let extraTurns = 0;
  let watchdogDue = false;
  const refusedAtAdmission: Record<string, number> = {};

  const api = (): ApiClient => new ApiClient(bridge!.url, token);

  /** Targets of the turn being planned: a later call of the turn starts where an earlier one left the joint. */
  const planned = new Map<string, number>();
  /** Where each joint is, or is headed: this turn's earlier target, the last motion_end's rest, or a running motion's target. */
  const restOf = (joint: JointConfig): number => {
    const inTurn = planned.get(joint.name);
    if (inTurn !== undefined) return inTurn;
    const events = effects.read();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if ((e.event === "motion_end" || e.event === "motion_start") && e.to?.[joint.name] !== undefined) return e.to[joint.name]!;
    }
    return joint.home;
  };

  /** Every joint's rest (restOf), `extra` applied. */
  const poseWith = (extra: Readonly<Record<string, number>>): Record<string, number> => ({ ...Object.fromEntries(joints.map((j) => [j.name, restOf(j)])), ...extra });
  /** The bridge checks each motion's path from the pose when its turn comes, and this turn's other calls may or may not have moved by then: both must pass. */
  const insideEnvelope = (target: Readonly<Record<string, number>>): boolean =>
    checkMotionEnvelope(config, poseWith({}), target, "move_joints").ok && checkMotionEnvelope(config, { ...poseWith({}), ...Object.fromEntries(planned) }, target, "move_joints").ok;
  /**
   * A move of `chosen` taking about `durationMs`; `atTarget` aims at where the
   * joint already is (the command then has nothing to do). Targets are drawn
   * inside the joint limits and, up to a few draws, with a path inside the
   * workspace envelope, so that calls reach the motion path instead of being
   * refused at admission; the speed is at least the config's min_speed.
   */
  const newCall = (chosen: readonly JointConfig[], durationMs: number, atTarget: "at_target" | "away" = "away"): CallRecord => {
    const positions: Record<string, number> = {};
    let speed = minSpeed;
    for (const j of chosen) {
      const rest = restOf(j);
      if (atTarget === "at_target") {
        const stay = Number(rest.toFixed(4));
        positions[j.name] = stay;
        planned.set(j.name, stay);
        continue;
      }
      // Far enough that the asked duration is not shorter than min_speed allows.
      const shortest = Math.min(minSpeed * j.maxVelocity * (durationMs / 1000), (j.max - j.min) / 2 - 0.1);
      let target = rest;
      for (let draw = 0; draw < 12; draw++) {
        const distance = Math.max(shortest, between(0.25, 0.85));
        target = rest + (random() < 0.5 ? -distance : distance);
        if (target < j.min + 0.05 || target > j.max - 0.05) target = rest - Math.sign(target - rest) * distance;
        target = Number(Math.min(j.max - 0.05, Math.max(j.min + 0.05, target)).toFixed(3));
        if (insideEnvelope({ [j.name]: target })) break;
      }
      positions[j.name] = target;
      planned.set(j.name, target);
      speed = Math.max(speed, Math.abs(target - rest) / (j.maxVelocity * (durationMs / 1000)));
    }
    const record: CallRecord = {
      id: `cl${options.seed}-${(nextCall++).toString().padStart(4, "0")}`,
      args: { positions, speed: atTarget === "at_target" ? 0.5 : Number(Math.min(1, Math.max(minSpeed, speed)).toFixed(3)) },
      knownActionId: undefined,
      answered: false,
      resentAfterLoss: false,
    };
    calls.set(record.id, record);
    return record;
  };
  /** `n` different joints, a seeded Fisher–Yates pick. */
  const distinctJoints = (n: number): JointConfig[] => {
    const pool = [...joints];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    return pool.slice(0, n);
  };

  const post = async (batch: readonly WireCall[], deadlineMs: number): Promise<BatchOutcome> => {
    sent += batch.length;
    try {
      const body = (await api().request("POST", "/v1/calls", { calls: batch, deadline_ms: deadlineMs })) as { responses: FunctionResponse[] };
      return { kind: "answered", results: body.responses.map((r) => resultOf(r.response)) };
    } catch (error) {
      return { kind: "lost", reason: error instanceof Error ? error.message : String(error) };
    }
  };

  const absorb = (records: readonly CallRecord[], outcome: BatchOutcome): void => {
    if (outcome.kind === "lost") {
      for (const r of records) if (!r.answered) answersLost++;
      return;
    }
    records.forEach((r, i) => {
      const result = outcome.results[i];
      if (!result) return;
      r.answered = true;
      if (result.status === "rejected") {
        const code = ("error_code" in result ? result.error_code : undefined) ?? "(no code)";
        refusedAtAdmission[code] = (refusedAtAdmission[code] ?? 0) + 1;
      }
      if ("action_id" in result && typeof result.action_id === "string") r.knownActionId = result.action_id;
    });
  };

  const waitFor = async (predicate: (events: readonly EffectLine[]) => boolean, timeoutMs: number): Promise<boolean> => {
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      if (predicate(effects.read())) return true;
      await sleep(5);
    }
    return predicate(effects.read());
  };
  const newStartsSince = (from: number) => (events: readonly EffectLine[]) => events.slice(from).filter((e) => e.event === "motion_start");
  const motionOpen = (actionId: string) => (events: readonly EffectLine[]) => motionIntervals(events).some((m) => m.actionId === actionId && m.end === Infinity);

  /** The operator path: every `unknown` row is confirmed from what the arm really did, once its motion (if any) has ended. */
  const settleUnknowns = async (): Promise<void> => {
    const { rows } = await readLedger(api(), [], { state: "unknown" });
    for (const row of rows) {
      await waitFor((events) => !motionOpen(row.action_id)(events), 15_000);
      const outcome = groundTruthOf(effects.read(), row.action_id) === "reached" ? "done" : "not_done";
      try {
        await api().request("POST", `/v1/actions/${encodeURIComponent(row.action_id)}/confirm`, { outcome, operator: OPERATOR, note: "from firmware-sim's effects log" });
        operatorConfirms++;
      } catch (error) {
        // A later observation may have settled it in the meantime; anything else is the harness's problem.
        if (!(error instanceof ApiError) || error.code !== "ARMB_ERR_ACTION_NOT_UNKNOWN") throw error;
      }
    }
  };

  /** Earlier call ids again: lost answers with the same arguments, answered ones with the same or other arguments. */
  const resendEarlier = async (): Promise<void> => {
    const batch: { record: CallRecord; kind: ResendRecord["kind"]; args: CallRecord["args"] }[] = [];
    const lost = [...calls.values()].filter((c) => !c.answered && !c.resentAfterLoss);
    for (const c of lost.slice(0, 2)) batch.push({ record: c, kind: "same_args", args: c.args });
    const recorded = [...calls.values()].filter((c) => c.knownActionId !== undefined && !batch.some((b) => b.record === c));
    if (recorded.length > 0 && random() < 0.4) {
      const c = pick(recorded);
      const [joint, p] = Object.entries(c.args.positions)[0]!;
      batch.push({ record: c, kind: "other_args", args: { ...c.args, positions: { ...c.args.positions, [joint]: Number((p > 0 ? p - 0.1 : p + 0.1).toFixed(3)) } } });
    }
    const others = recorded.filter((c) => !batch.some((b) => b.record === c));
    if (others.length > 0 && random() < 0.3) {
      const c = pick(others);
      batch.push({ record: c, kind: "same_args", args: c.args });
    }
    if (batch.length === 0) return;
    const knownBefore = batch.map((b) => b.record.knownActionId);
    const outcome = await post(
      batch.map((b) => ({ id: b.record.id, name: "move_joints", args: b.args })),
      15_000,
    );
    if (outcome.kind === "lost") throw new Error(`re-send batch lost without a kill: ${outcome.reason}`);
    batch.forEach((b, i) => {
      const result = outcome.results[i]!;
      const actionId = "action_id" in result && typeof result.action_id === "string" ? result.action_id : undefined;
      resends.push({
        callId: b.record.id,
        kind: b.kind,
        knownActionId: knownBefore[i],
        status: result.status,
        replayed: result.replayed === true,
        errorCode: "error_code" in result ? result.error_code : undefined,
        actionId,
      });
      if (!b.record.answered) b.record.resentAfterLoss = true;
      if (b.kind === "same_args") {
        b.record.answered = true;
        b.record.knownActionId ??= actionId;
      }
    });
  };

  const start = async (): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        bridge = await spawnServe({ link: sim.link, dataDir, token, logFile: bridgeLog, logLevel: "debug", readyTimeoutMs: READY_TIMEOUT_MS });
        restartToReadyMs.push(bridge.readyMs);
        return;
      } catch (error) {
        if (!(error instanceof ServeStartFailed) || attempt >= 3) throw error;
        startRetries++;
        say(`serve did not start (${error.message}); trying again`);
        await sleep(500);
      }
    }
  };

  try {
    await start();
    restartToReadyMs.length = 0; // the first start is not a restart
    for (let k = 0; k < options.kills; k++) {
      planned.clear();
      await settleUnknowns();
      await resendEarlier();
      await settleUnknowns();
      // Now and then a turn that is answered in full, so later re-sends have recorded results to hit.
      if (random() < 0.35) {
        const records = distinctJoints(1 + Math.floor(random() * 2)).map((j) => newCall([j], between(150, 450), random() < 0.15 ? "at_target" : "away"));
        absorb(records, await post(records.map(wire), 15_000));
        await settleUnknowns();
      }
      planned.clear();

      // Due every `watchdogEvery` kills, and again at the next kill until a motion really was halted by it
      // (a seeded fault may end the long motion first).
      if (watchdogEvery > 0 && k % watchdogEvery === Math.min(3, watchdogEvery - 1)) watchdogDue = true;
      const pastWatchdog = watchdogDue;
      const moment: KillMoment = pastWatchdog ? "mid_motion" : pick(KILL_MOMENTS);
      killsByMoment[moment]++;
      const mark = effects.read().length;
      let records: CallRecord[] = [];
      let inFlight: Promise<BatchOutcome> | undefined;
      let watched: string | undefined;
      switch (moment) {
        case "before_request": {
          // Half the time nothing is in flight; else the request is on its way or just taken in.
          if (random() < 0.5) {
            records = distinctJoints(1 + Math.floor(random() * 2)).map((j) => newCall([j], between(200, 600), random() < 0.3 ? "at_target" : "away"));
            inFlight = post(records.map(wire), 15_000);
            await sleep(between(0, 25));
          } else await sleep(between(0, 150));
          break;
        }
        case "queued": {
          // Three calls on one joint (FIFO behind its lock), perhaps one elsewhere.
          const [j, other] = distinctJoints(2);
          // The last may aim where the one before leaves the joint: when its turn comes there is nothing to do.
          records = [newCall([j!], between(250, 550)), newCall([j!], between(250, 550)), newCall([j!], between(250, 550), random() < 0.3 ? "at_target" : "away")];
          if (random() < 0.5) records.push(newCall([other!], between(250, 550)));
          inFlight = post(records.map(wire), 15_000);
          await waitFor((events) => newStartsSince(mark)(events).length > 0, 5000);
          await sleep(between(0, 700));
          break;
        }
        case "mid_motion": {
          if (pastWatchdog) {
            records = [newCall(distinctJoints(1), watchdogMs + between(1500, 2500))];
          } else {
            const n = 1 + Math.floor(random() * 3);
            records = Array.from({ length: n }, (_, i) => newCall(distinctJoints(i === 2 ? 2 : 1), between(400, 1200)));
          }
          inFlight = post(records.map(wire), 15_000);
          await waitFor((events) => newStartsSince(mark)(events).length > 0, 5000);
          watched = newStartsSince(mark)(effects.read())[0]?.action_id ?? undefined;
          await sleep(pastWatchdog ? between(100, 300) : between(0, 900));
          break;
        }
        case "mid_observation": {
          // A run deadline shorter than the motions: the waits end and the bridge observes until they do.
          const deadline = Math.round(between(120, 350));
          const durations = [between(900, 1600), between(900, 1600)];
          records = distinctJoints(1 + Math.floor(random() * 2)).map((j, i) => newCall([j], durations[i]!, i === 1 && random() < 0.3 ? "at_target" : "away"));
          inFlight = post(records.map(wire), deadline);
          await waitFor((events) => newStartsSince(mark)(events).length > 0, 5000);
          await sleep(deadline + between(50, 700));
          break;
        }
      }

      const killedAt = performance.now();
      await bridge!.kill();
      if (inFlight) absorb(records, await inFlight);
      const lostHere = records.filter((r) => !r.answered).length;
      let note = "";
      if (pastWatchdog && watched !== undefined) {
        // Stay down until the motion has ended, then read from the effects log (not assume) whether the watchdog ended it.
        await waitFor((events) => !motionOpen(watched)(events), watchdogMs + 5000);
        const end = effects.read().find((e) => e.event === "motion_end" && e.action_id === watched) as (EffectLine & { detail?: string }) | undefined;
        const byWatchdog = end?.outcome === "stopped" && /watchdog/.test(end.detail ?? "");
        if (byWatchdog) {
          downPastWatchdog++;
          watchdogDue = false;
        }
        note = byWatchdog
          ? `, stayed down until the ${watchdogMs} ms watchdog halted the motion (${Math.round(performance.now() - killedAt)} ms after the kill)`
          : `, stayed down but the motion ended ${end ? `${end.outcome} (${end.detail ?? ""})` : "not at all"}, not by the watchdog`;
      }
      await start();
      const ids = records.length ? ` [${records.map((r) => r.id).join(" ")}]` : "";
      say(`kill ${k + 1}/${options.kills} ${moment}${note}: ${records.length} call(s) in the turn${ids}, ${lostHere} answer(s) lost; restart → ready ${Math.round(bridge!.readyMs)} ms`);
    }

    // Final start done by the loop's last restart: settle, re-send every lost answer once, settle again.
    await settleUnknowns();
    // Which replies a seed makes late shifts with timing, so a short run may not have had a MOVE
    // re-sent to a device that had already acted on it. Run on (bounded) until it has.
    const repeatsAnswered = (): number => countLines(simLog, (l) => l.includes('"op":"MOVE"') && l.includes("repeated frame"));
    for (let extra = 0; extra < 40 && repeatsAnswered() === 0; extra++) {
      planned.clear();
      const records = distinctJoints(2).map((j) => newCall([j], between(400, 800)));
      absorb(records, await post(records.map(wire), 15_000));
      await settleUnknowns();
      extraTurns++;
    }
    while ([...calls.values()].some((c) => !c.answered && !c.resentAfterLoss)) {
      await resendEarlier();
      await settleUnknowns();
    }
    await waitFor((events) => motionIntervals(events).every((m) => m.end !== Infinity), 30_000);
    await settleUnknowns();

    const events = effects.read();
    const knownIds = new Set<string>();
    for (const e of events) if (e.action_id !== null) knownIds.add(e.action_id);
    for (const c of calls.values()) if (c.knownActionId) knownIds.add(c.knownActionId);
    const ledger = await readLedger(api(), knownIds);
    const { verdict, tally } = judgeCrashLoop(events, ledger.rows, resends, rowsByCall(ledger.rows));
    await bridge!.stop(10_000);
    bridge = undefined;
    return {
      seed: options.seed,
      kills: options.kills,
      killsByMoment,
      downPastWatchdog,
      calls: sent,
      answersLost,
      resends: {
        sameArgs: resends.filter((r) => r.kind === "same_args").length,
        otherArgs: resends.filter((r) => r.kind === "other_args").length,
        ofLostAnswers: resends.filter((r) => r.kind === "same_args" && r.knownActionId === undefined).length,
      },
      operatorConfirms,
      restartToReadyMs,
      startRetries,
      moveResends: countLines(bridgeLog, (l) => l.includes('"op":"MOVE"') && l.includes("re-sending the same frame")),
      moveRepeatsAnsweredFromCache: repeatsAnswered(),
      refusedAtAdmission,
      extraTurns,
      skippedByPaging: ledger.skippedByPaging,
      verdict,
      tally,
      simArgs: sim.args,
      wallMs: performance.now() - began,
      dir: options.dir,
    };
  } finally {
    await bridge?.kill();
    await sim.stop(3000);
  }
}

function wire(record: CallRecord): WireCall {
  return { id: record.id, name: "move_joints", args: record.args };
}

function countLines(path: string, match: (line: string) => boolean): number {
  try {
    return readFileSync(path, "utf8").split("\n").filter(match).length;
  } catch {
    return 0;
  }
}

/** p50 / p95 / max of the restart → ready times. */
export function readyFigures(report: Pick<CrashLoopReport, "restartToReadyMs">): { p50: number; p95: number; max: number } {
  const ms = report.restartToReadyMs;
  return { p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: ms.length ? Math.max(...ms) : NaN };
}
