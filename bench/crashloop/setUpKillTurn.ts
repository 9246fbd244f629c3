import { setTimeout as sleep } from "node:timers/promises";
import type { EffectLine } from "../../firmware-sim/effectsJudge.js";
import { wire, type BatchOutcome } from "./BridgeSession.js";
import type { CallRecord } from "./CallPlanner.js";
import type { KillTurnDeps } from "./KillTurnDeps.js";
import { stageProbeableMotion } from "./stageProbeableMotion.js";

/** Where in a call's life the bridge is killed. */
export const KILL_MOMENTS = ["before_request", "queued", "mid_motion", "mid_observation"] as const;
export type KillMoment = (typeof KILL_MOMENTS)[number];

/** The turn under way when the kill comes. */
export interface KillTurn {
  readonly records: readonly CallRecord[];
  /** The batch's answer, or its loss to the kill. */
  readonly inFlight: Promise<BatchOutcome> | undefined;
  /** The motion a kill past the watchdog waits on. */
  readonly watched: string | undefined;
}

/**
 * Sets up one turn and returns at the moment the bridge is to be killed:
 * before a request (or with one just on its way), while calls queue on one
 * joint, mid-motion, or mid-observation (a run deadline shorter than the
 * motions). `pastWatchdog`: one long motion the bridge then stays down for,
 * until the simulator's watchdog halts it part-way — an `unknown` for the
 * operator path, set up where a probe can meet it (stageProbeableMotion).
 */
export async function setUpKillTurn(moment: KillMoment, pastWatchdog: boolean, d: KillTurnDeps): Promise<KillTurn> {
  const { planner, session } = d;
  let mark = d.effects().length;
  const newStarts = (events: readonly EffectLine[]): EffectLine[] =>
    events.slice(mark).filter((e) => e.event === "motion_start");
  const post = (records: readonly CallRecord[], deadlineMs: number): Promise<BatchOutcome> =>
    session.post(records.map(wire), deadlineMs);
  switch (moment) {
    case "before_request": {
      // Half the time nothing is in flight; else the request is on its way or just taken in.
      if (d.random() < 0.5) {
        const records = planner
          .distinctJoints(1 + Math.floor(d.random() * 2))
          .map((j) => planner.newCall([j], planner.between(200, 600), d.random() < 0.3 ? "at_target" : "away"));
        const inFlight = post(records, 15_000);
        await sleep(planner.between(0, 25));
        return { records, inFlight, watched: undefined };
      }
      await sleep(planner.between(0, 150));
      return { records: [], inFlight: undefined, watched: undefined };
    }
    case "queued": {
      // Three calls on one joint (FIFO behind its lock), perhaps one elsewhere.
      const [j, other] = planner.distinctJoints(2);
      // The last may aim where the one before leaves the joint: when its turn comes there is nothing to do.
      const records = [
        planner.newCall([j!], planner.between(250, 550)),
        planner.newCall([j!], planner.between(250, 550)),
        planner.newCall([j!], planner.between(250, 550), d.random() < 0.3 ? "at_target" : "away"),
      ];
      if (d.random() < 0.5 && other) records.push(planner.newCall([other], planner.between(250, 550)));
      const inFlight = post(records, 15_000);
      await d.waitFor((events) => newStarts(events).length > 0, 5000);
      await sleep(planner.between(0, 700));
      return { records, inFlight, watched: undefined };
    }
    case "mid_motion": {
      let records: CallRecord[];
      if (pastWatchdog) {
        records = [await stageProbeableMotion(d, d.watchdogMs + planner.between(1500, 2500))];
        // The staging moves are not the motion the kill is about.
        mark = d.effects().length;
      } else {
        const n = 1 + Math.floor(d.random() * 3);
        records = Array.from({ length: n }, (_, i) =>
          planner.newCall(planner.distinctJoints(i === 2 ? 2 : 1), planner.between(400, 1200)),
        );
      }
      const inFlight = post(records, 15_000);
      await d.waitFor((events) => newStarts(events).length > 0, 5000);
      const watched = newStarts(d.effects())[0]?.action_id ?? undefined;
      await sleep(pastWatchdog ? planner.between(100, 300) : planner.between(0, 900));
      return { records, inFlight, watched };
    }
    case "mid_observation": {
      // A run deadline shorter than the motions: the waits end and the bridge observes until they do.
      const deadline = Math.round(planner.between(120, 350));
      const durations = [planner.between(900, 1600), planner.between(900, 1600)];
      const records = planner
        .distinctJoints(1 + Math.floor(d.random() * 2))
        .map((j, i) => planner.newCall([j], durations[i]!, i === 1 && d.random() < 0.3 ? "at_target" : "away"));
      const inFlight = post(records, deadline);
      await d.waitFor((events) => newStarts(events).length > 0, 5000);
      await sleep(deadline + planner.between(50, 700));
      return { records, inFlight, watched: undefined };
    }
  }
}
