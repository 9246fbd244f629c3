import type { Logger } from "pino";
import { actuatorsOf, type Actuator } from "../../config/actuators.js";
import { ActionTracker } from "./ActionTracker.js";
import type { JointLimits } from "./buildTrajectoryGoal.js";
import type { GoalServer } from "./GoalRun.js";
import { GoalSender } from "./GoalSender.js";
import { ArmConditions } from "./ArmConditions.js";
import { FrankaRecovery } from "./FrankaRecovery.js";
import { Halter } from "./Halter.js";
import { JointStateObserver } from "./JointStateObserver.js";
import { MotionPaceMonitor } from "./MotionPaceMonitor.js";
import { MotionWaiter } from "./MotionWaiter.js";
import { FrankaHandHoming } from "./FrankaHandHoming.js";
import { OutcomeConfirmer } from "./OutcomeConfirmer.js";
import { Ros2LinkWatch } from "./Ros2LinkWatch.js";
import type { Ros2TransportDeps } from "./Ros2TransportDeps.js";
import { RosClock } from "./RosClock.js";
import type { RosFacts } from "./RosFacts.js";
import type { RosoutWatcher } from "./RosoutWatcher.js";
import { ServerRegistry } from "./ServerRegistry.js";

/** At most one status per this many ms: a 1 kHz joint_state_broadcaster (Franka) is merged down to 200 Hz. */
const MIN_STATUS_INTERVAL_MS = 5;

/** What the parts need of the transport that holds them. */
export interface Ros2TransportHooks {
  /** Ends with close(). */
  readonly closing: AbortSignal;
  readonly bounded: <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  /** What start-up read of the graph; undefined before open. */
  readonly facts: () => RosFacts | undefined;
  readonly rosout: () => RosoutWatcher | undefined;
  readonly onFeedback: (actionId: string, server: GoalServer, feedback: unknown) => void;
}

/** The collaborators Ros2Transport wires: one place that builds them and hands each what it reads of the others. */
export interface Ros2Parts {
  readonly actuators: ReadonlyMap<string, Actuator>;
  readonly servers: ServerRegistry;
  readonly tracker: ActionTracker;
  readonly observer: JointStateObserver;
  readonly clock: RosClock;
  readonly pace: MotionPaceMonitor;
  readonly waiter: MotionWaiter;
  readonly halter: Halter;
  readonly linkWatch: Ros2LinkWatch;
  /** franka_hardware's three recovery steps: on any graph, where a missing server fails the first. */
  readonly armRecovery: FrankaRecovery;
  /** What the arm's drivers say keeps it from moving (a UR's status, an FR3 reflex). */
  readonly arm: ArmConditions;
  readonly sender: GoalSender;
}

export function assembleRos2Parts(
  deps: Ros2TransportDeps,
  log: Logger,
  now: () => number,
  hooks: Ros2TransportHooks,
): Ros2Parts {
  const { bounded } = hooks;
  const actuatorList = actuatorsOf(deps.config);
  const actuators = new Map(actuatorList.map((a) => [a.name, a]));
  const limits: ReadonlyMap<string, JointLimits> = new Map(
    actuatorList.map((a) => [a.name, { maxVelocity: a.maxVelocity, maxAcceleration: a.maxAcceleration }]),
  );
  const servers = new ServerRegistry(deps.setup);
  const tracker: ActionTracker = new ActionTracker({
    actuators,
    staleAfterMs: deps.config.staleAfterMs,
    now,
    latest: () => observer.latest(),
  });
  const observer = new JointStateObserver({
    joints: deps.config.arm.joints.map((j) => j.name),
    gripper: deps.setup.gripper,
    stoppedVelocity: deps.config.tolerances.stoppedVelocity,
    actions: (sample) => tracker.recentRecords(sample),
    now,
    minStatusIntervalMs: MIN_STATUS_INTERVAL_MS,
  });
  const clock = new RosClock(deps.rcl, deps.node, log);
  const pace = new MotionPaceMonitor({
    rcl: deps.rcl,
    node: deps.node,
    broadcasterTopic: deps.setup.options.speedScalingTopic,
    now,
    simTime: clock.simTime,
    warn: (what, err) => log.warn({ err }, `cannot subscribe to ${what}`),
  });
  const common = { config: deps.config, servers, tracker, observer, now, bounded };
  const hand = new FrankaHandHoming();
  const confirmer = new OutcomeConfirmer({
    ...common,
    options: deps.setup.options,
    goalTolerancesHonoured: () => hooks.facts()?.goalTolerancesHonoured,
    rosout: hooks.rosout,
    hand,
  });
  const waiter = new MotionWaiter({
    ...common,
    options: deps.setup.options,
    nodeNow: () => clock.nowMs(),
    closing: hooks.closing,
    confirmer,
  });
  const halter = new Halter({
    ...common,
    setup: deps.setup,
    actuators,
    limits,
    log,
    decelerateOnCancel: (controller) => hooks.facts()?.controllers.get(controller)?.decelerateOnCancel,
    speedScaling: (controller) => pace.speedScalingOf(controller),
    blendsNewGoals: (controller) => hooks.facts()?.controllers.get(controller)?.blendsNewGoals,
  });
  const linkWatch = new Ros2LinkWatch({ ...deps, servers, observer, tracker, waiter, log, now, facts: hooks.facts });
  const sender = new GoalSender({
    ...deps,
    ...common,
    setup: deps.setup,
    actuators,
    limits,
    latest: () => observer.latest(),
    halter,
    clock,
    facts: hooks.facts,
    closing: hooks.closing,
    onFeedback: hooks.onFeedback,
    hand,
  });
  const { arm, armRecovery } = armParts(deps, log, now);
  return { actuators, servers, tracker, observer, clock, pace, waiter, halter, linkWatch, sender, armRecovery, arm };
}

/** What the arm's drivers say keeps it from moving, and the recovery that ends a reflex. */
function armParts(
  deps: Ros2TransportDeps,
  log: Logger,
  now: () => number,
): { arm: ArmConditions; armRecovery: FrankaRecovery } {
  const controllers = () => deps.setup.controllers.map((c) => c.name);
  const warn = (what: string, err: unknown): void => log.warn({ err }, `cannot subscribe to ${what}`);
  const arm = new ArmConditions({ rcl: deps.rcl, node: deps.node, now, warn });
  // A reflex recovered where the link never dropped (franka_ros2 releases that keep the broadcaster up) ends here.
  const onRecovered = (): void => arm.reflexRecovered();
  return { arm, armRecovery: new FrankaRecovery({ rcl: deps.rcl, node: deps.node, controllers, onRecovered }) };
}
