import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { wire } from "./BridgeSession.js";
import type { CallRecord } from "./CallPlanner.js";
import type { KillTurnDeps } from "./KillTurnDeps.js";

/**
 * The long motion a watchdog kill leaves `unknown`, set up so that a probe
 * can meet its path (the run's ProbeScenario): staging moves, each answered
 * in full, take the arm to the scenario's pose — straight there when that
 * path passes the envelope, else by way of home — and the scenario's long
 * move is returned for the caller to send and kill under. Without a scenario,
 * or when an unsettled motion holds a joint the staging would move, or a
 * staging move is not done, a long move from where the arm is.
 */
export async function stageProbeableMotion(d: KillTurnDeps, durationMs: number): Promise<CallRecord> {
  const { planner, desk, config, scenario } = d;
  const fallback = (): CallRecord => planner.newCall(planner.distinctJoints(1), durationMs);
  if (!scenario) return fallback();
  const held = desk.heldJoints();
  const now = planner.pose();
  const moves = (to: Readonly<Record<string, number>>): Record<string, number> =>
    Object.fromEntries(Object.entries(to).filter(([name, v]) => Math.abs((now[name] ?? v) - v) > 1e-3));
  const toStaged = moves(scenario.staged);
  if ([...Object.keys(toStaged), scenario.unsettled.joint].some((j) => held.has(j))) return fallback();
  const inFlight = desk.inFlight();
  const home = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));
  const route = checkMotionEnvelope(config, now, toStaged, "move_joints", inFlight).ok
    ? [toStaged]
    : checkMotionEnvelope(config, now, moves(home), "move_joints", inFlight).ok
      ? [
          moves(home),
          Object.fromEntries(
            Object.entries(scenario.staged).filter(([name, v]) => Math.abs((home[name] ?? v) - v) > 1e-3),
          ),
        ]
      : [];
  if (route.length === 0) return fallback();
  for (const step of route) {
    if (Object.keys(step).length === 0) continue;
    planner.newTurn();
    const staging = planner.callTo(step, planner.between(1200, 1800));
    const outcome = await d.session.post([wire(staging)], 20_000);
    d.session.absorb([staging], outcome);
    if (outcome.kind !== "answered" || outcome.results[0]?.status !== "done") return fallback();
  }
  planner.newTurn();
  return planner.callTo({ [scenario.unsettled.joint]: scenario.unsettled.target }, durationMs);
}
