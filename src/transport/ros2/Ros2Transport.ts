import { randomBytes } from "node:crypto";
import pino, { type Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../../config/actuators.js";
import { deviceText } from "../../validation/deviceText.js";
import { ArmbridgeError } from "../../errors.js";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";
import { LinkLifecycle, type LinkReturn } from "../link/LinkLifecycle.js";
import { linkSignals } from "../linkSignals.js";
import { refuseUnsendable } from "../motionProblem.js";
import type {
  ActionRecord,
  ArmIdentity,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  MotionPaceSource,
  MotionTimingSource,
  Transport,
} from "../Transport.js";
import { ActionTracker, type ActionTrack } from "./ActionTracker.js";
import { awaitWithin } from "./awaitWithin.js";
import type { JointLimits } from "./buildTrajectoryGoal.js";
import { GoalRun, type GoalServer } from "./GoalRun.js";
import { Halter } from "./Halter.js";
import { JointStateObserver } from "./JointStateObserver.js";
import { MotionPaceMonitor } from "./MotionPaceMonitor.js";
import { MotionWaiter } from "./MotionWaiter.js";
import { OutcomeConfirmer } from "./OutcomeConfirmer.js";
import { planMotion, refusal } from "./planMotion.js";
import { probeRosGraph, type ProbeDeps } from "./probeRosGraph.js";
import { interpreterFor } from "./resultInterpreters.js";
import { RosClock } from "./RosClock.js";
import type { RosFacts } from "./RosFacts.js";
import { RosoutWatcher } from "./RosoutWatcher.js";
import { MSG_JOINT_STATE, type Rclnodejs, type RclNode, type RclSubscription } from "./rclTypes.js";
import type { Ros2Setup } from "./resolveRos2Setup.js";
import { ServerRegistry } from "./ServerRegistry.js";

/** How often the ROS link is judged (servers available, /joint_states fresh): a console hears of a change within this. */
const LINK_POLL_MS = 200;
/** At most one status per this many ms: a 1 kHz joint_state_broadcaster (Franka) is merged down to 200 Hz. */
const MIN_STATUS_INTERVAL_MS = 5;

export interface Ros2TransportDeps {
  readonly rcl: Rclnodejs;
  /** A node that is already spinning (createRos2Node). */
  readonly node: RclNode;
  /** The arm config as resolved with resolveRos2Setup. */
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly logger?: Logger;
  readonly now?: () => number;
  /** Delays between checks of a lost graph. Default 100 ms doubling to 500 ms (a check is cheap). */
  readonly backoff?: BackoffOptions | undefined;
  /** Try to get a lost graph back (default true). false: a lost graph stays `down` until the bridge restarts. */
  readonly reconnect?: boolean | undefined;
  /** Replaces where package versions are read from (tests); see probeRosGraph. */
  readonly packageVersion?: ProbeDeps["packageVersion"];
}

/** FollowJointTrajectory / gripper feedback for progress reporting. */
export interface Ros2Feedback {
  readonly actionId: string;
  readonly server: GoalServer;
  /** The raw feedback message (FJT: joint_names, desired, actual, error). */
  readonly feedback: unknown;
}

/**
 * The Transport over ROS 2 (made by Ros2Host, which owns the node): arm
 * joints through joint_trajectory_controller FollowJointTrajectory goals, the gripper through GripperCommand (or
 * ParallelGripperCommand), observation through /joint_states.
 *
 * The work is split along its seams: ServerRegistry (which server drives
 * what), planMotion (goals from fresh /joint_states), GoalRun + ActionTracker
 * (each goal, each action's record), MotionWaiter (how long, and on what
 * evidence, to wait for an outcome), Halter (stop). This class wires them.
 *
 * What the ROS side cannot do, and how this copes:
 * - No rclnodejs promise has a timeout, and a dead server never answers: every
 *   wait is bounded by our own AbortSignals (awaitWithin).
 * - A ROS goal cannot be voided before it arrives: queryAction knows only the
 *   goals this process sent, and answers `undefined` for any other id.
 * - JTC runs one goal per controller and preempts: the executor locks
 *   `controller:<name>` (resourcesFor), and every goal names all the
 *   controller's joints, the untouched ones held where they are.
 */
export class Ros2Transport implements Transport {
  readonly kind = "ros2";
  readonly #deps: Ros2TransportDeps;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #actuators: ReadonlyMap<string, Actuator>;
  readonly #limits: ReadonlyMap<string, JointLimits>;
  readonly #observer: JointStateObserver;
  readonly #servers: ServerRegistry;
  readonly #tracker: ActionTracker;
  readonly #waiter: MotionWaiter;
  readonly #halter: Halter;
  readonly #sending = new Map<string, Promise<MotionEnd | ActionTrack>>();
  readonly #feedbackListeners = new Set<(feedback: Ros2Feedback) => void>();
  readonly #closing = new AbortController();
  readonly #subscriptions: RclSubscription[] = [];
  readonly #pace: MotionPaceMonitor;
  readonly #clock: RosClock;
  #rosout: RosoutWatcher | undefined;
  #facts: RosFacts | undefined;
  readonly #link: LinkLifecycle;
  #linkPoll: NodeJS.Timeout | undefined;
  /** The joint names the JointState topics carried when the transport opened: which robot this is. */
  #identity: readonly string[] = [];
  /** Action servers that went away since the link was lost: a controller that restarted has forgotten its goals. */
  readonly #gone = new Set<string>();
  #lostAt = 0;
  /** Returns after which a server had gone away: each is a new incarnation of the controllers. */
  #restarts = 0;
  readonly #session = randomBytes(4).toString("hex");
  #opened = false;
  #closed: Promise<void> | undefined;

  constructor(deps: Ros2TransportDeps) {
    this.#deps = deps;
    this.#log = (deps.logger ?? pino({ level: "silent" })).child({ component: "ros2-transport" });
    this.#now = deps.now ?? Date.now;
    const actuators = actuatorsOf(deps.config);
    this.#actuators = new Map(actuators.map((a) => [a.name, a]));
    this.#limits = new Map(
      actuators.map((a) => [a.name, { maxVelocity: a.maxVelocity, maxAcceleration: a.maxAcceleration }]),
    );
    this.#servers = new ServerRegistry(deps.setup);
    this.#link = new LinkLifecycle({
      describe: "the ROS graph",
      logger: this.#log,
      now: this.#now,
      // DDS discovery brings servers back by itself; a check costs nothing, so look often.
      backoff: deps.backoff ?? { initialMs: 100, maxMs: 500 },
      reconnect: deps.reconnect,
      attemptTimeoutMs: 2000,
      lastStatusAt: () => this.#observer.latest()?.stampMs,
      incarnation: () => `ros2:${this.#session}:${this.#restarts}`,
      inFlight: () => this.#tracker.activeIds(),
      attempt: async () => this.#tryReturn(),
    });
    this.#tracker = new ActionTracker({
      actuators: this.#actuators,
      staleAfterMs: deps.config.staleAfterMs,
      now: this.#now,
      latest: () => this.latestStatus(),
    });
    this.#observer = new JointStateObserver({
      joints: deps.config.arm.joints.map((j) => j.name),
      gripper: deps.setup.gripper,
      stoppedVelocity: deps.config.tolerances.stoppedVelocity,
      actions: (sample) => this.#tracker.recentRecords(sample),
      now: this.#now,
      minStatusIntervalMs: MIN_STATUS_INTERVAL_MS,
    });
    this.#clock = new RosClock(deps.rcl, deps.node, this.#log);
    this.#pace = new MotionPaceMonitor({
      rcl: deps.rcl,
      node: deps.node,
      broadcasterTopic: deps.setup.options.speedScalingTopic,
      now: this.#now,
      simTime: this.#clock.simTime,
      warn: (what, err) => this.#log.warn({ err }, `cannot subscribe to ${what}`),
    });
    const bounded = <T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>): Promise<T> =>
      this.#bounded(signals, fn);
    const confirmer = new OutcomeConfirmer({
      options: deps.setup.options,
      config: deps.config,
      servers: this.#servers,
      tracker: this.#tracker,
      observer: this.#observer,
      now: this.#now,
      bounded,
      goalTolerancesHonoured: () => this.#facts?.goalTolerancesHonoured,
      rosout: () => this.#rosout,
    });
    this.#waiter = new MotionWaiter({
      options: deps.setup.options,
      config: deps.config,
      servers: this.#servers,
      tracker: this.#tracker,
      observer: this.#observer,
      now: this.#now,
      nodeNow: () => this.#clock.nowMs(),
      bounded,
      closing: this.#closing.signal,
      confirmer,
    });
    this.#halter = new Halter({
      config: deps.config,
      setup: deps.setup,
      servers: this.#servers,
      tracker: this.#tracker,
      observer: this.#observer,
      actuators: this.#actuators,
      limits: this.#limits,
      log: this.#log,
      now: this.#now,
      bounded,
      decelerateOnCancel: (controller) => this.#facts?.controllers.get(controller)?.decelerateOnCancel,
      speedScaling: (controller) => this.#pace.speedScalingOf(controller),
    });
  }

  /**
   * Creates the action clients, reads what the graph says of the controllers
   * (RosFacts: versions, speed scaling, path tolerances, gripper kind, the
   * JointState sources) within probe_timeout_ms and logs every fact and
   * assumption, subscribes, and waits for the first status naming every axis.
   */
  async open(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind });
    const { rcl, node, setup } = this.#deps;
    if (!this.#opened) {
      this.#opened = true;
      this.#servers.createClients(rcl, node);
      const facts = await probeRosGraph({
        node,
        setup,
        timeoutMs: setup.options.probeTimeoutMs,
        signal: AbortSignal.any([this.#closing.signal, ...(signal ? [signal] : [])]),
        ...(this.#deps.packageVersion ? { packageVersion: this.#deps.packageVersion } : {}),
      });
      this.#facts = facts;
      this.#log.info({ facts: facts.lines }, "ROS 2 controller facts (read, or assumed where the graph did not say)");
      if (facts.gripper?.behaviour === "franka") {
        this.#observer.setGripperVelocity("estimated");
        try {
          this.#rosout = new RosoutWatcher(rcl, node, "franka_gripper", this.#now);
        } catch (error) {
          this.#log.warn(
            { err: error },
            "cannot subscribe to /rosout: a franka_gripper failure will be reported without its logged cause",
          );
        }
      }
      for (const topic of facts.jointStates.topics) {
        this.#subscriptions.push(node.createSubscription(MSG_JOINT_STATE, topic, (msg) => this.#observer.handle(msg)));
      }
      this.#pace.start(facts.controllers);
    }
    const axes = [...this.#actuators.keys()];
    const ms = setup.options.jointStatesTimeoutMs;
    const topics = this.#facts?.jointStates.topics.join(", ") ?? setup.options.jointStatesTopic;
    const wait = AbortSignal.any([this.#closing.signal, AbortSignal.timeout(ms), ...(signal ? [signal] : [])]);
    const first = await this.#observer.waitFor((s) => axes.every((a) => a in s.axes), wait);
    if (!first) {
      this.#link.down(`no ${topics} naming ${axes.join(", ")} within ${ms} ms`);
      throw new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", {
        operation: `a message on ${topics} naming ${axes.join(", ")}`,
        ms,
      });
    }
    this.#identity = this.#observer.namesSince(0);
    for (const [name, client] of this.#servers.clients()) {
      if (!client.isActionServerAvailable())
        this.#log.warn({ server: name }, "action server not available yet; the link is reconnecting until it is");
    }
    this.#link.opened();
    this.#watchLink();
    // Neither a vanished action server nor silent /joint_states produces a callback, so the link is judged on a clock.
    this.#linkPoll ??= setInterval(() => this.#watchLink(), LINK_POLL_MS);
    this.#linkPoll.unref();
  }

  /** What start-up read (or assumed) of the controllers; undefined before open(). */
  get facts(): RosFacts | undefined {
    return this.#facts;
  }

  /** The speed scaling of the trajectory controllers that drive the axes. */
  readonly pace: MotionPaceSource = {
    of: (axes) => {
      const controllers = this.#servers
        .serversFor(axes)
        .flatMap((s) => (s.kind === "trajectory" ? [s.controller] : []));
      return controllers.length === 0 ? undefined : this.#pace.pace(controllers);
    },
    onChange: (listener) => this.#pace.onChange(listener),
  };

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      clearInterval(this.#linkPoll);
      this.#linkPoll = undefined;
      await this.#link.close();
      this.#servers.destroyClients(this.#log);
      for (const subscription of this.#subscriptions.splice(0)) {
        try {
          this.#deps.node.destroySubscription(subscription);
        } catch (error) {
          this.#log.warn({ err: error }, "destroying a joint_states subscription failed");
        }
      }
      this.#observer.close();
      this.#pace.close();
      this.#clock.close();
      this.#rosout?.close();
      this.#feedbackListeners.clear();
    })();
    return this.#closed;
  }

  /** The resolved arm config (controllers from ROS parameters): use it for lock keys (resourcesFor). */
  get config(): ArmConfig {
    return this.#deps.config;
  }

  /**
   * One FollowJointTrajectory goal per controller with a single point and
   * zero end velocities, which JTC interpolates as a cubic (position and
   * velocity given: ros-controls/ros2_controllers,
   * joint_trajectory_controller/doc/trajectory.rst @ 0e684b55), timed by
   * buildTrajectoryGoal (speed scales velocity and acceleration, never under
   * min_motion_s). Controllers run side by side, each on its own time.
   */
  readonly timing: MotionTimingSource = {
    motionTiming: () => ({
      kind: "synchronized_cubic",
      groups: this.#deps.config.arm.controllers.map((c) => c.joints),
      minDurationS: this.#deps.setup.options.minMotionS,
    }),
  };

  readonly identity: ArmIdentity = {
    /** The controllers and gripper action this bridge drives: what a ROS graph says of the arm's identity. */
    arm: () => {
      const { setup } = this.#deps;
      const controllers = setup.controllers.map((c) => `${c.name}@${c.actionName}`).join(",");
      return `ros2 controllers ${controllers}${setup.gripper ? `, gripper ${setup.gripper.actionName}` : ""}`;
    },
    /** The controllers report no incarnation of their own. */
    incarnation: () => undefined,
  };

  latestStatus(): ArmStatus | undefined {
    return this.#observer.latest();
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    return this.#observer.onStatus(listener);
  }

  linkState(): LinkState {
    return this.#link.snapshot();
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    return this.#link.subscribe(listener);
  }

  /** What keeps the link from being `connected` now: servers not available, JointState topics stale. */
  #problems(): string[] {
    const missing = [...this.#servers.clients()].filter(([, c]) => !c.isActionServerAvailable()).map(([name]) => name);
    const latest = this.#observer.latest();
    const age = latest ? this.#now() - latest.stampMs : Infinity;
    const topic = this.#jointStatesTopics();
    // Stable words (no running age): listeners hear of a change only.
    return [
      ...(missing.length > 0 ? [`action server(s) not available: ${missing.join(", ")}`] : []),
      ...(age > this.#deps.config.staleAfterMs
        ? [latest ? `no ${topic} for more than ${this.#deps.config.staleAfterMs} ms` : `no ${topic} yet`]
        : []),
    ];
  }

  /** The JointState topics the arm is read from, as start-up found them. */
  #jointStatesTopics(): string {
    return this.#facts?.jointStates.topics.join(" / ") ?? this.#deps.setup.options.jointStatesTopic;
  }

  /**
   * Judged every LINK_POLL_MS: connected while every action server we drive
   * is available and the JointState topics are fresher than stale_after_ms.
   * A server seen gone is remembered until the link is back: it may have been
   * restarted, forgetting our goals.
   */
  #watchLink(): void {
    if (this.#closed) return;
    for (const [name, client] of this.#servers.clients()) if (!client.isActionServerAvailable()) this.#gone.add(name);
    if (this.#link.state !== "connected") return;
    const problems = this.#problems();
    if (problems.length === 0) return;
    this.#lostAt = this.#now();
    this.#link.lost(problems.join("; "));
  }

  /**
   * One check of a lost graph (LinkLifecycle): the link is back once every
   * server is available and the JointState topics are fresh again, naming no
   * joint they did not name at open (another robot answering is refused,
   * never driven). A server that went away meanwhile makes a new incarnation:
   * a restarted controller has forgotten our goals and will never send their
   * results, so those goals are settled from the JointState topics
   * (MotionWaiter.settleForgotten), never re-sent.
   */
  async #tryReturn(): Promise<LinkReturn> {
    const topic = this.#jointStatesTopics();
    const strangers = this.#observer.namesSince(this.#lostAt).filter((n) => !this.#identity.includes(n));
    if (strangers.length > 0) {
      throw new ArmbridgeError("ARMB_ERR_DEVICE_REPLACED", {
        link: "the ROS graph",
        // The names are whatever the other publisher chose: device text.
        detail: `${topic} names ${deviceText(`the publishers of ${topic}`, strangers.join(", "))}, joints it did not name when the bridge started (${this.#identity.join(", ")})`,
      });
    }
    const problems = this.#problems();
    if (problems.length > 0) throw new Error(problems.join("; "));
    const gone = [...this.#gone];
    this.#gone.clear();
    if (gone.length === 0)
      return { incarnation: "same", detail: `every action server stayed available; ${topic} is fresh again` };
    this.#restarts++;
    // Named as clients() names them: a controller's name, or "gripper".
    // Only goals the controller had accepted: a request still without an answer may yet be delivered
    // late, so it is left to the executor's observation (unknown if nothing accounts for it).
    const forgotten = this.#tracker
      .unfinishedRuns()
      .filter(
        ({ run }) =>
          run.phase === "accepted" && gone.includes(run.server.kind === "gripper" ? "gripper" : run.server.controller),
      );
    for (const { track, run } of forgotten)
      void this.#waiter.settleForgotten(track, run, this.#log.child({ action_id: track.actionId }));
    return {
      incarnation: "new",
      detail: `action server(s) ${gone.join(", ")} went away and came back: a restarted controller forgets its goals; ${forgotten.length} goal(s) in flight on them settled from ${topic}, never re-sent`,
    };
  }

  /** FollowJointTrajectory (desired/actual/error) and gripper feedback, for progress. */
  onFeedback(listener: (feedback: Ros2Feedback) => void): () => void {
    this.#feedbackListeners.add(listener);
    return () => this.#feedbackListeners.delete(listener);
  }

  async runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    const log = this.#log.child({ action_id: command.actionId });
    if (this.#closed)
      return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
    // The same id again is the same motion: wait on it, never send a second goal —
    // also while the first call is still waiting for a server.
    const existing = this.#tracker.get(command.actionId);
    if (existing) return this.#waiter.awaitEnd(existing, signal, log);
    if (!this.#sending.has(command.actionId)) {
      const unsendable = refuseUnsendable(command, (axis) => this.#actuators.get(axis), {
        transport: this.kind,
        link: this.#link.snapshot(),
      });
      if (unsendable) return unsendable;
    }
    let sending = this.#sending.get(command.actionId);
    if (!sending) {
      const id = command.actionId;
      sending = this.#send(command, signal, log);
      this.#sending.set(id, sending);
      void sending.then(() => this.#sending.delete(id));
    }
    const pending = sending;
    const sent = await this.#bounded([signal], (s) => awaitWithin(pending, s));
    if (sent.kind === "aborted") {
      if (this.#closing.signal.aborted)
        return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
      return { kind: "wait_ended" };
    }
    if (sent.kind === "error")
      return {
        kind: "link_error",
        error: new ArmbridgeError(
          "ARMB_ERR_ROS_GOAL",
          { action: command.actionId, reason: String(sent.error) },
          { cause: sent.error },
        ),
      };
    if ("kind" in sent.value) return sent.value;
    return this.#waiter.awaitEnd(sent.value, signal, log);
  }

  /** Validates, waits for the servers, plans from fresh /joint_states and sends: a track, or why nothing was sent. */
  async #send(command: MotionCommand, signal: AbortSignal, log: Logger): Promise<MotionEnd | ActionTrack> {
    const targetServers = this.#servers.serversFor(Object.keys(command.targets));
    const haltsBefore = targetServers.map((sv) => this.#halter.count(sv));
    const unavailable = await this.#awaitServers(targetServers, command, signal);
    if (unavailable) return unavailable;
    if (signal.aborted || this.#closing.signal.aborted)
      return refusal(command.actionId, "the wait ended before any goal was sent");
    // A stop issued while this motion waited for its server wins: the motion was asked for before the stop.
    const haltedMeanwhile = targetServers.filter((sv, i) => this.#halter.count(sv) !== haltsBefore[i]);
    if (haltedMeanwhile.length > 0) {
      return refusal(
        command.actionId,
        `a halt on ${haltedMeanwhile.map((sv) => this.#servers.actionNameOf(sv)).join(", ")} came before the goal was sent`,
      );
    }
    // Planned only now, from the freshest /joint_states, since waiting for a server took time.
    const plan = planMotion(command, {
      config: this.#deps.config,
      setup: this.#deps.setup,
      servers: this.#servers,
      actuators: this.#actuators,
      limits: this.#limits,
      now: this.#now,
      latest: () => this.latestStatus(),
    });
    if ("refused" in plan) return plan.refused;

    const id = command.actionId;
    const gripperFacts = this.#facts?.gripper;
    const interpreting = {
      gripper: this.#deps.setup.gripper,
      behaviour:
        gripperFacts?.behaviour ??
        (this.#deps.setup.gripper?.kind === "parallel_gripper" ? "parallel_gripper" : "gripper_command"),
      graspEpsilonOuter: gripperFacts?.graspEpsilonOuter ?? 0.005,
      gripperTolerance: this.#deps.config.tolerances.gripper,
      start: plan.start,
      targets: command.targets,
    } as const;
    const runs = plan.goals.map(
      (g) =>
        new GoalRun(
          g.server,
          g.actionName,
          () => {
            this.#tracker.onRunChange(id);
            this.#observer.publish();
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
      sentAtNodeMs: this.#clock.nowMs(),
      final: undefined,
      endedAtMs: undefined,
    };
    this.#tracker.remember(track);
    plan.goals.forEach((g, i) => {
      log.info({ server: g.actionName, duration_s: g.durationS }, "sending goal");
      runs[i]?.start(
        g.client,
        g.goal,
        (feedback) => this.#emitFeedback({ actionId: id, server: g.server, feedback }),
        this.#now,
      );
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
      const client = this.#servers.clientOf(server);
      if (!client) return refusal(command.actionId, `transport not opened`);
      if (client.isActionServerAvailable()) continue;
      const r = await this.#bounded([signal, AbortSignal.timeout(ms)], (s) => awaitWithin(client.waitForServer(ms), s));
      if (r.kind !== "value" || !r.value) {
        const name = this.#servers.actionNameOf(server);
        return {
          kind: "refused",
          reason: `action server ${name} is not available`,
          error: new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", { operation: `waitForServer ${name}`, ms }),
        };
      }
    }
    return undefined;
  }

  async queryAction(
    actionId: string,
    _options: { voidIfUnknown: boolean; signal: AbortSignal },
  ): Promise<ActionRecord | undefined> {
    // A ROS goal we did not send cannot be looked up, and one in flight cannot be
    // voided, so `voidIfUnknown` has nothing to act on: unknown ids stay undefined.
    const track = this.#tracker.get(actionId);
    return track ? this.#tracker.recordOf(track) : undefined;
  }

  /** See Halter: cancels our goals; preempts a foreign motion with a hold at its stopping point. */
  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    if (this.#closed)
      return {
        halted: false,
        status: this.latestStatus(),
        error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }),
      };
    const link = this.#link.snapshot();
    const result = await this.#halter.halt(options.axes ?? [...this.#actuators.keys()], options.signal);
    // Cancels were sent where a server could hear them, but with the link not connected no
    // fresh JointState shows the arm still: a halt nobody saw is not reported as one.
    if (link.state !== "connected" || this.#link.state !== "connected") {
      return {
        halted: false,
        status: result.status,
        error:
          result.error ??
          new ArmbridgeError("ARMB_ERR_LINK_DOWN", {
            transport: this.kind,
            state: this.#link.state,
            detail: link.detail ?? "no fresh JointState",
          }),
      };
    }
    return result;
  }

  /**
   * Runs `fn` with a signal that ends with any of `signals` or with close().
   * Not AbortSignal.any over the long-lived closing signal: on Node 20 each
   * composed signal stays referenced from it, a leak per motion (see linkSignals).
   */
  async #bounded<T>(signals: readonly AbortSignal[], fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const linked = linkSignals([this.#closing.signal, ...signals]);
    try {
      return await fn(linked.signal);
    } finally {
      linked.dispose();
    }
  }

  #emitFeedback(feedback: Ros2Feedback): void {
    if (feedback.server.kind === "trajectory") this.#pace.onFeedback(feedback.server.controller, feedback.feedback);
    for (const listener of [...this.#feedbackListeners]) {
      try {
        listener(feedback);
      } catch (error) {
        this.#log.warn({ action_id: feedback.actionId, err: error }, "feedback listener threw");
      }
    }
  }
}
