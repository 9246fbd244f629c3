import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import {
  groundTruthOf,
  motionIntervals,
  overlapsIn,
  repeatedStarts,
  type EffectLine,
} from "../../firmware-sim/effectsJudge.js";
import { startSimulator, type RunningSimulator } from "../../firmware-sim/startSimulator.js";
import { Bridge } from "../../src/bridge/Bridge.js";
import type { CallResult, FunctionCall } from "../../src/executor/calls/CallResult.js";
import { mulberry32 } from "../../src/random/mulberry32.js";
import type { InFlightMotion } from "../../src/safety/InFlightMotions.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { testConfig } from "../support/testConfig.js";

/**
 * The whole bridge against a misbehaving arm: frames dropped and corrupted
 * both ways, late replies, genuine failures, stalls, status freezes and
 * reboots mid-motion, all seeded. Model turns of random calls, some sharing
 * joints, with deadlines short enough that many waits time out mid-motion.
 *
 * Every settled status must agree with the simulator's ground truth: `done`
 * only if the motion reached its target, `failed` only if nothing moved;
 * `unknown` is allowed (an operator would confirm it, as this test does from
 * the ground truth). Never a duplicate execution, never an overlap.
 */
let sim: RunningSimulator | undefined;
let bridge: Bridge | undefined;
afterEach(async () => {
  await bridge?.close();
  await sim?.close();
  bridge = undefined;
  sim = undefined;
});

const JOINTS = ["shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3"];

describe("fault soak: seeded faults on the wire and in the arm", () => {
  it.each([11, 29])("seed %i: every status agrees with the effects log; no duplicate, no overlap", async (seed) => {
    const config = testConfig({ observe: { budget_ms: 600, max_ms: 4000, query_interval_ms: 60 } });
    const effects = new MemoryEffects();
    sim = await startSimulator({
      armConfig: config,
      link: "tcp",
      port: 0,
      seed,
      effects,
      motionTime: { kind: "lognormal", medianMs: 150, sigma: 0.5 },
      failRate: 0.08,
      dropRate: 0.05,
      corruptRate: 0.05,
      ackDelayMs: 30,
      stallRate: 0.04,
      freezeRate: 0.05,
      rebootRate: 0.03,
    });
    bridge = await Bridge.start({
      config,
      transport: { kind: "serial", link: sim.link },
      dataDir: join(mkdtempSync(join(tmpdir(), "armbridge-soak-")), "data"),
    });
    const random = mulberry32(seed);
    const results: { call: FunctionCall; result: CallResult }[] = [];
    let unknowns = 0;

    for (let turn = 0; turn < 14; turn++) {
      const calls: FunctionCall[] = [];
      const n = 1 + Math.floor(random() * 3);
      // Where the arm is (ground truth) and what still moves in it; this turn's calls join them.
      const events = effects.events as EffectLine[];
      const pose = restPose(
        config.arm.joints.map((j) => [j.name, j.home] as const),
        events,
      );
      const moving = unfinishedMotions(events);
      const planned: Record<string, number> = {};
      for (let k = 0; k < n; k++) {
        // Targets the bridge's own envelope admits (as the crash-loop harness picks them,
        // bench/crashloop/CallPlanner.ts): from where the arm rests and from where this turn's
        // earlier calls may have left it, alongside every motion that may still be running.
        // The soak is about what happens after admission; a few draws, else the call is left out.
        for (let draw = 0; draw < 8; draw++) {
          const joint = JOINTS[Math.floor(random() * JOINTS.length)]!;
          // Distinct, far-apart targets: an arm already at its target proves nothing about a motion.
          const target = Number((turn % 2 === 0 ? -0.6 - random() * 0.3 : 0.6 + random() * 0.3).toFixed(3));
          // Far from where the joint is, or will be after this turn's earlier call on it.
          if (Math.abs(target - (planned[joint] ?? pose[joint]!)) < 0.3 || Math.abs(target - pose[joint]!) < 0.3)
            continue;
          const others = [
            ...moving,
            ...Object.entries(planned)
              .filter(([j]) => j !== joint)
              .map(([j, to]) => ({ actionId: `planned-${j}`, from: { [j]: pose[j]! }, to: { [j]: to } })),
          ];
          const admitted = [pose, { ...pose, ...planned }].every(
            (from) => checkMotionEnvelope(config, from, { [joint]: target }, "move_joints", others).ok,
          );
          if (!admitted) continue;
          planned[joint] = target;
          calls.push({
            id: `s${seed}-t${turn}-c${k}`,
            name: "move_joints",
            args: { positions: { [joint]: target }, speed: 1 },
          });
          break;
        }
      }
      if (calls.length === 0) continue;
      const responses = await bridge.executor.execute(calls, { deadlineMs: 60 + Math.floor(random() * 200) });
      for (const [i, r] of responses.entries()) {
        results.push({ call: calls[i]!, result: r.result });
        // An operator settles unknowns from what really happened, so the soak can go on.
        if (r.result.status === "unknown") {
          unknowns++;
          await new Promise((res) => setTimeout(res, 400));
          const truth = groundTruthOf(effects.events, r.result.action_id!);
          bridge.executor.confirm(r.result.action_id!, {
            outcome: truth === "reached" ? "done" : "not_done",
            operator: "soak",
          });
        }
      }
    }
    // Let every motion finish before judging.
    await new Promise((res) => setTimeout(res, 1500));
    const events = effects.events as EffectLine[];

    expect(repeatedStarts(events)).toBe(0);
    expect(overlapsIn(events)).toBe(0);
    const intervals = new Map(motionIntervals(events).map((m) => [m.actionId, m]));
    const tally: Record<string, number> = {};
    for (const { call, result } of results) {
      tally[result.status] = (tally[result.status] ?? 0) + 1;
      switch (result.status) {
        case "done": {
          const truth = groundTruthOf(events, result.action_id!);
          expect(truth, `${call.id} done but the arm says ${truth}`).toBe("reached");
          break;
        }
        case "failed": {
          if (result.action_id === undefined) break;
          const m = intervals.get(result.action_id);
          // Nothing moved: never started, or faulted exactly where it began.
          if (m) {
            const end = events.find((e) => e.event === "motion_end" && e.action_id === result.action_id);
            expect(end?.outcome, `${call.id} failed but the arm moved`).toBe("faulted");
            expect(end?.to, `${call.id} failed but the arm moved`).toEqual(end?.from);
          }
          break;
        }
        case "stopped": {
          // Moved and ended part-way: never at the target.
          const truth = groundTruthOf(events, result.action_id);
          expect(truth, `${call.id} stopped but the arm says ${truth}`).not.toBe("reached");
          break;
        }
        case "unknown":
        case "skipped":
        case "blocked":
          break;
        case "rejected":
          // The arguments are always valid and the targets were drawn inside the envelope from
          // the arm's ground-truth pose; a fault (a motion stopped short, a reboot) can still leave
          // the arm where the bridge's check refuses one. Only the envelope may refuse, and then
          // nothing is sent (checked below).
          if (result.error_code !== "ARMB_ERR_ENVELOPE_VIOLATION" && result.error_code !== "ARMB_ERR_SELF_COLLISION")
            throw new Error(`${call.id} rejected: ${result.message}`);
          break;
      }
      if (result.status === "skipped" || result.status === "blocked" || result.status === "rejected") {
        // Nothing was sent: no action was even recorded for the call.
        expect(bridge.ledger.findByCallId(call.id!), `${call.id} ${result.status} but recorded`).toBeUndefined();
      }
    }
    // The soak must have exercised the hard paths, or it proves little: mostly motions, not refusals.
    expect(tally.rejected ?? 0, JSON.stringify(tally)).toBeLessThan(results.length / 4);
    expect(results.filter((r) => r.result.timed_out).length, JSON.stringify(tally)).toBeGreaterThan(3);
    expect(tally.done ?? 0).toBeGreaterThan(5);
    console.log(
      `[soak seed ${seed}] ${JSON.stringify(tally)}, timed out ${results.filter((r) => r.result.timed_out).length}, unknown ${unknowns}`,
    );
  });
});

/** Each joint where the effects log last left it (a motion's end, or a running motion's target); home if never moved. */
function restPose(
  homes: readonly (readonly [string, number])[],
  events: readonly EffectLine[],
): Record<string, number> {
  const pose = Object.fromEntries(homes);
  for (const e of events) {
    if ((e.event === "motion_end" || e.event === "motion_start") && e.to) Object.assign(pose, e.to);
  }
  return pose;
}

/** Motions the arm started and has not ended: the envelope check counts them anywhere along their path. */
function unfinishedMotions(events: readonly EffectLine[]): InFlightMotion[] {
  const open = new Map<string, InFlightMotion>();
  for (const e of events) {
    const key = e.action_id ?? e.motion;
    if (key === undefined || key === null) continue;
    if (e.event === "motion_start" && e.from && e.to)
      open.set(String(key), { actionId: String(key), from: e.from, to: e.to });
    if (e.event === "motion_end") open.delete(String(key));
  }
  return [...open.values()];
}
