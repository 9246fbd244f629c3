import type { Logger } from "pino";
import { ArmbridgeError } from "../../errors.js";
import type { MotionCommand, MotionEnd } from "../Transport.js";
import type { ActionTrack, ActionTracker } from "./ActionTracker.js";
import { awaitWithin } from "./awaitWithin.js";
import { GoalRun, type GoalServer } from "./GoalRun.js";
import type { Halter } from "./Halter.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import { planMotion, refusal, type MotionPlanning, type PlannedGoal } from "./planMotion.js";
import { interpreterFor } from "./resultInterpreters.js";
import type { RosClock } from "./RosClock.js";
import type { RosFacts } from "./RosFacts.js";

export interface GoalSenderDeps extends MotionPlanning {
  readonly halter: Halter;
  readonly tracker: ActionTracker;
  readonly observer: JointStateObserver;
  readonly clock: RosClock;
  /** What start-up read of the graph; undefined before open. */
  readonly facts: () => RosFacts | undefined;
  /** Ends with close(). */
  readonly closing: AbortSignal;
  readonly bounded: <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  readonly onFeedback: (actionId: string, server: GoalServer, feedback: unknown) => void;
}

/** The way from a motion command to goals in flight: the servers waited for, the plan, one GoalRun per goal. */
export class GoalSender {
  readonly #deps: GoalSenderDeps;

  constructor(deps: GoalSenderDeps) {
    this.#deps = deps;
  }

  /** Validates, waits for the servers, plans from fresh /joint_states and sends: a track, or why nothing was sent. */
  async send(command: MotionCommand, signal: AbortSignal, log: Logger): Promise<MotionEnd | ActionTrack> {
    const { servers, halter } = this.#deps;
    const targetServers = servers.serversFor(Object.keys(command.targets));
    const haltsBefore = targetServers.map((sv) => halter.count(sv));
    const unavailable = await this.#awaitServers(targetServers, command, signal);
    if (unavailable) return unavailable;
    if (signal.aborted || this.#deps.closing.aborted)
      return refusal(command.actionId, "the wait ended before any goal was sent");
    // A stop issued while this motion waited for its server wins: the motion was asked for before the stop.
    const haltedMeanwhile = targetServers.filter((sv, i) => halter.count(sv) !== haltsBefore[i]);
    if (haltedMeanwhile.length > 0) {
      return refusal(
        command.actionId,
        `a halt on ${haltedMeanwhile.map((sv) => servers.actionNameOf(sv)).join(", ")} came before the goal was sent`,
      );
    }
    // Planned only now, from the freshest /joint_states, since waiting for a server took time.
    const plan = planMotion(command, this.#deps);
    if ("refused" in plan) return plan.refused;
    return this.#start(command, plan, log);
  }

  /** One GoalRun per planned goal, remembered in a track before any goal leaves. */
  #start(
    command: MotionCommand,
    plan: { readonly goals: readonly PlannedGoal[]; readonly start: Readonly<Record<string, number>> },
    log: Logger,
  ): ActionTrack {
    const { setup, config, tracker, observer } = this.#deps;
    const id = command.actionId;
    const gripperFacts = this.#deps.facts()?.gripper;
    const interpreting = {
      gripper: setup.gripper,
      behaviour:
        gripperFacts?.behaviour ??
        (setup.gripper?.kind === "parallel_gripper" ? "parallel_gripper" : "gripper_command"),
      graspEpsilonOuter: gripperFacts?.graspEpsilonOuter ?? 0.005,
      gripperTolerance: config.tolerances.gripper,
      start: plan.start,
      targets: command.targets,
    } as const;
    const runs = plan.goals.map(
      (g) =>
        new GoalRun(
          g.server,
          g.actionName,
          () => {
            tracker.onRunChange(id);
            observer.publish();
          },
          interpreterFor(g.server, interpreting),
        ),
    );
    const track: ActionTrack = {
      actionId: id,
      axes: Object.keys(command.targets),
      start: plan.start,
      targets: { ...command.targets },
      runs,
      planMs: Math.max(...plan.goals.map((g) => g.durationS)) * 1000,
      sentAtNodeMs: this.#deps.clock.nowMs(),
      final: undefined,
      endedAtMs: undefined,
    };
    tracker.remember(track);
    plan.goals.forEach((g, i) => {
      log.info({ server: g.actionName, duration_s: g.durationS }, "sending goal");
      runs[i]?.start(g.client, g.goal, (feedback) => this.#deps.onFeedback(id, g.server, feedback), this.#deps.now);
    });
    return track;
  }

  async #awaitServers(
    servers: readonly GoalServer[],
    command: MotionCommand,
    signal: AbortSignal,
  ): Promise<MotionEnd | undefined> {
    const ms = this.#deps.setup.options.serverWaitMs;
    for (const server of servers) {
      const client = this.#deps.servers.clientOf(server);
      if (!client) return refusal(command.actionId, `transport not opened`);
      if (client.isActionServerAvailable()) continue;
      const r = await this.#deps.bounded([signal, AbortSignal.timeout(ms)], (s) =>
        awaitWithin(client.waitForServer(ms), s),
      );
      if (r.kind !== "value" || !r.value) {
        const name = this.#deps.servers.actionNameOf(server);
        return {
          kind: "refused",
          reason: `action server ${name} is not available`,
          error: new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", { operation: `waitForServer ${name}`, ms }),
        };
      }
    }
    return undefined;
  }
}
