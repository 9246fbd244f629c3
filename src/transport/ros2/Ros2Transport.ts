import pino, { type Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import type { Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import type { LinkLifecycle } from "../link/LinkLifecycle.js";
import { linkSignals } from "../linkSignals.js";
import { refuseUnsendable } from "../motionProblem.js";
import type {
  ActionRecord,
  ArmIdentity,
  ArmRecovery,
  ArmStatus,
  HaltResult,
  LinkState,
  MotionCommand,
  MotionEnd,
  MotionPaceSource,
  MotionTimingSource,
  Transport,
} from "../Transport.js";
import type { ActionTrack, ActionTracker } from "./ActionTracker.js";
import { awaitWithin } from "./awaitWithin.js";
import type { GoalSender } from "./GoalSender.js";
import type { Halter } from "./Halter.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import type { MotionPaceMonitor } from "./MotionPaceMonitor.js";
import type { MotionWaiter } from "./MotionWaiter.js";
import { probeRosGraph } from "./probeRosGraph.js";
import { assembleRos2Parts } from "./assembleRos2Parts.js";
import type { RosClock } from "./RosClock.js";
import type { RosFacts } from "./RosFacts.js";
import type { Ros2LinkWatch } from "./Ros2LinkWatch.js";
import { RosoutWatcher } from "./RosoutWatcher.js";
import { MSG_JOINT_STATE, type RclSubscription } from "./rclTypes.js";
import type { Ros2Feedback, Ros2TransportDeps } from "./Ros2TransportDeps.js";
import type { ServerRegistry } from "./ServerRegistry.js";
import { endWithCondition, refuseForCondition } from "./urArmCondition.js";
import type { ArmConditions } from "./ArmConditions.js";

/** How long a safety stop's hold waits for the JointStates to show the arm at rest (UR brakes within about 0.5 s). */
const STILL_WITHIN_MS = 1500;

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
  readonly #linkWatch: Ros2LinkWatch;
  readonly #link: LinkLifecycle;
  readonly #sender: GoalSender;
  readonly armRecovery: ArmRecovery;
  /** A UR's safety mode, robot mode and program state, an FR3 reflex: what keeps the arm from moving. */
  readonly #arm: ArmConditions;
  #opened = false;
  #closed: Promise<void> | undefined;

  constructor(deps: Ros2TransportDeps) {
    this.#deps = deps;
    this.#log = (deps.logger ?? pino({ level: "silent" })).child({ component: "ros2-transport" });
    this.#now = deps.now ?? Date.now;
    const parts = assembleRos2Parts(deps, this.#log, this.#now, {
      closing: this.#closing.signal,
      bounded: (signals, fn) => this.#bounded(signals, fn),
      facts: () => this.#facts,
      rosout: () => this.#rosout,
      onFeedback: (actionId, server, feedback) => this.#emitFeedback({ actionId, server, feedback }),
    });
    this.#actuators = parts.actuators;
    this.#servers = parts.servers;
    this.#tracker = parts.tracker;
    this.#observer = parts.observer;
    this.#clock = parts.clock;
    this.#pace = parts.pace;
    this.#waiter = parts.waiter;
    this.#halter = parts.halter;
    this.#linkWatch = parts.linkWatch;
    this.#link = parts.linkWatch.lifecycle;
    this.#sender = parts.sender;
    this.armRecovery = parts.armRecovery;
    this.#arm = parts.arm;
    this.#arm.onChange(() => this.#onArmCondition());
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
      this.#arm.start();
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
    this.#linkWatch.start();
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
      await this.#linkWatch.close();
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
      this.#arm.close();
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
   * One FollowJointTrajectory goal per controller on one synchronised
   * trapezoid, with a point at each of its phase changes so JTC's cubics
   * follow it exactly (buildTrajectoryGoal: speed scales velocity and
   * acceleration, never under min_motion_ms). Controllers run side by side,
   * each on its own time.
   */
  readonly timing: MotionTimingSource = {
    motionTiming: () => ({
      kind: "synchronized_trapezoid",
      groups: this.#deps.config.arm.controllers.map((c) => c.joints),
      minDurationS: this.#deps.setup.options.minMotionMs / 1000,
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
    return this.#arm.link(this.#link.snapshot());
  }

  onLinkState(listener: (state: LinkState) => void): () => void {
    const offLink = this.#link.subscribe((link) => listener(this.#arm.link(link)));
    const offArm = this.#arm.onChange(() => listener(this.linkState()));
    return () => {
      offLink();
      offArm();
    };
  }

  /**
   * A UR protective stop or E-stop only pauses its program: resumed, it would carry on with the motion
   * (ur_robot_driver doc/robot_state_helper.rst). Our goals are cancelled at once, so a resume moves nothing.
   */
  #onArmCondition(): void {
    const condition = this.#arm.condition();
    if (condition?.kind !== "safety_stop" || this.#closed || this.#tracker.activeIds().length === 0) return;
    this.#log.error({ detail: condition.detail }, "the arm's safety system stopped it: cancelling the goals in flight");
    void this.halt({ signal: this.#closing.signal });
  }

  /**
   * The robot brakes by itself on a safety stop: a hold is sent once the
   * JointStates show it at rest, so it holds where it stands. A hold planned
   * from the velocity before the stop would run its stopping distance on resume.
   */
  async #atRest(signal: AbortSignal): Promise<void> {
    const within = AbortSignal.any([signal, this.#closing.signal, AbortSignal.timeout(STILL_WITHIN_MS)]);
    await this.#observer.waitFor((s) => Object.values(s.axes).every((a) => !a.moving), within);
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
    if (existing) return endWithCondition(await this.#waiter.awaitEnd(existing, signal, log), this.#arm.condition());
    const condition = this.#arm.condition();
    if (condition && !this.#sending.has(command.actionId)) return refuseForCondition(condition);
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
      sending = this.#sender.send(command, signal, log);
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
    if ("kind" in sent.value) return endWithCondition(sent.value, this.#arm.condition());
    return endWithCondition(await this.#waiter.awaitEnd(sent.value, signal, log), this.#arm.condition());
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
    if (this.#arm.condition()?.kind === "safety_stop") await this.#atRest(options.signal);
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
