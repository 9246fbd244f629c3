import pino, { type Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import type { ActionRecord, ActionState, ArmStatus, HaltResult, MotionCommand, MotionEnd, Transport } from "../Transport.js";
import { awaitWithin } from "./awaitWithin.js";
import { buildTrajectoryGoal, restToRestTime, type JointLimits } from "./buildTrajectoryGoal.js";
import { GoalRun, type GoalServer } from "./GoalRun.js";
import { buildGripperGoal } from "./gripperMapping.js";
import { JointStateObserver, type JointSample } from "./JointStateObserver.js";
import {
  ACTION_FOLLOW_JOINT_TRAJECTORY,
  ACTION_GRIPPER_COMMAND,
  ACTION_PARALLEL_GRIPPER_COMMAND,
  MSG_JOINT_STATE,
  type CancelGoalResponse,
  type Rclnodejs,
  type RclActionClient,
  type RclNode,
  type RclSubscription,
} from "./rclTypes.js";
import type { Ros2Setup, TrajectoryControllerSetup } from "./resolveRos2Setup.js";
import { linkSignals } from "../linkSignals.js";
import { motionProblem } from "../motionProblem.js";

/** action_msgs/srv/CancelGoal return codes that mean "nothing left to stop". */
const CANCEL_ERROR_NONE = 0;
const CANCEL_ERROR_GOAL_TERMINATED = 3;
/** Finished actions kept for queryAction; the ledger is the durable record. */
const MAX_TRACKED_ACTIONS = 256;
/** Recent actions included in each ArmStatus. */
const STATUS_ACTIONS = 16;

export interface Ros2TransportDeps {
  readonly rcl: Rclnodejs;
  /** A node that is already spinning (createRos2Node). */
  readonly node: RclNode;
  /** The arm config as resolved with resolveRos2Setup. */
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly logger?: Logger;
  /** Runs once in close(), after our handles are destroyed: shuts the node and rclnodejs down. */
  readonly onClose?: () => void | Promise<void>;
  readonly now?: () => number;
}

/** FollowJointTrajectory / gripper feedback for progress reporting. */
export interface Ros2Feedback {
  readonly actionId: string;
  readonly server: GoalServer;
  /** The raw feedback message (FJT: joint_names, desired, actual, error). */
  readonly feedback: unknown;
}

interface ActionTrack {
  readonly actionId: string;
  readonly axes: readonly string[];
  readonly start: Readonly<Record<string, number>>;
  readonly runs: readonly GoalRun[];
  /** Longest planned motion (ms), bounding how long a result may take. */
  readonly planMs: number;
  /**
   * Frozen when every run is terminal, so later motions cannot change what
   * this one did; its `moved` is settled by the first sample measured after
   * that moment (see #moved).
   */
  final: ActionRecord | undefined;
  /** Local ms when the last run became terminal. */
  endedAtMs: number | undefined;
}

interface PlannedGoal {
  readonly server: GoalServer;
  readonly client: RclActionClient;
  readonly actionName: string;
  readonly goal: object;
  readonly durationS: number;
}

type Prepared = { readonly refused: MotionEnd } | { readonly goals: readonly PlannedGoal[]; readonly start: Readonly<Record<string, number>> };

/**
 * The Transport over ROS 2: arm joints through joint_trajectory_controller
 * FollowJointTrajectory goals, the gripper through GripperCommand (or
 * ParallelGripperCommand), observation through /joint_states.
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
  readonly #tracks = new Map<string, ActionTrack>();
  readonly #sending = new Map<string, Promise<MotionEnd | ActionTrack>>();
  readonly #feedbackListeners = new Set<(feedback: Ros2Feedback) => void>();
  readonly #closing = new AbortController();
  readonly #trajectoryClients = new Map<string, RclActionClient>();
  /** Halts per server (serverKey): a goal still waiting for its server when a halt came is never sent. */
  readonly #halts = new Map<string, number>();
  #gripperClient: RclActionClient | undefined;
  #subscription: RclSubscription | undefined;
  #opened = false;
  #closed: Promise<void> | undefined;

  constructor(deps: Ros2TransportDeps) {
    this.#deps = deps;
    this.#log = (deps.logger ?? pino({ level: "silent" })).child({ component: "ros2-transport" });
    this.#now = deps.now ?? Date.now;
    const actuators = actuatorsOf(deps.config);
    this.#actuators = new Map(actuators.map((a) => [a.name, a]));
    this.#limits = new Map(actuators.map((a) => [a.name, { maxVelocity: a.maxVelocity, maxAcceleration: a.maxAcceleration }]));
    this.#observer = new JointStateObserver({
      joints: deps.config.arm.joints.map((j) => j.name),
      gripper: deps.setup.gripper,
      stoppedVelocity: deps.config.tolerances.stoppedVelocity,
      actions: (sample) => this.#recentRecords(sample),
      now: this.#now,
    });
  }

  async open(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind });
    const { rcl, node, setup } = this.#deps;
    if (!this.#opened) {
      this.#opened = true;
      for (const c of setup.controllers) {
        this.#trajectoryClients.set(c.name, new rcl.ActionClient(node, ACTION_FOLLOW_JOINT_TRAJECTORY, c.actionName));
      }
      if (setup.gripper) {
        const type = setup.gripper.kind === "parallel_gripper" ? ACTION_PARALLEL_GRIPPER_COMMAND : ACTION_GRIPPER_COMMAND;
        this.#gripperClient = new rcl.ActionClient(node, type, setup.gripper.actionName);
      }
      this.#subscription = node.createSubscription(MSG_JOINT_STATE, setup.options.jointStatesTopic, (msg) => this.#observer.handle(msg));
    }
    const axes = [...this.#actuators.keys()];
    const ms = setup.options.jointStatesTimeoutMs;
    const wait = AbortSignal.any([this.#closing.signal, AbortSignal.timeout(ms), ...(signal ? [signal] : [])]);
    const first = await this.#observer.waitFor((s) => axes.every((a) => a in s.axes), wait);
    if (!first) {
      throw new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", { operation: `a message on ${setup.options.jointStatesTopic} naming ${axes.join(", ")}`, ms });
    }
    for (const [name, client] of this.#clients()) {
      if (!client.isActionServerAvailable()) this.#log.warn({ server: name }, "action server not available yet; motions will wait for it");
    }
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      for (const [name, client] of this.#clients()) {
        try {
          client.destroy();
        } catch (error) {
          this.#log.warn({ server: name, err: error }, "destroying action client failed");
        }
      }
      if (this.#subscription) {
        try {
          this.#deps.node.destroySubscription(this.#subscription);
        } catch (error) {
          this.#log.warn({ err: error }, "destroying the joint_states subscription failed");
        }
      }
      this.#feedbackListeners.clear();
      await this.#deps.onClose?.();
    })();
    return this.#closed;
  }

  /** The resolved arm config (controllers from ROS parameters): use it for lock keys (resourcesFor). */
  get config(): ArmConfig {
    return this.#deps.config;
  }

  latestStatus(): ArmStatus | undefined {
    return this.#observer.latest();
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    return this.#observer.onStatus(listener);
  }

  /** FollowJointTrajectory (desired/actual/error) and gripper feedback, for progress. */
  onFeedback(listener: (feedback: Ros2Feedback) => void): () => void {
    this.#feedbackListeners.add(listener);
    return () => this.#feedbackListeners.delete(listener);
  }

  async runMotion(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd> {
    const log = this.#log.child({ action_id: command.actionId });
    if (this.#closed) return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
    // The same id again is the same motion: wait on it, never send a second goal —
    // also while the first call is still waiting for a server.
    const existing = this.#tracks.get(command.actionId);
    if (existing) return this.#awaitTrack(existing, signal, log);
    let sending = this.#sending.get(command.actionId);
    if (!sending) {
      const id = command.actionId;
      sending = this.#send(command, signal, log);
      this.#sending.set(id, sending);
      void sending.then(() => this.#sending.delete(id));
    }
    const pending = sending;
    const sent = await this.#bounded([signal], (s) => awaitWithin(pending, s));
    if (sent.kind === "aborted") return this.#waitEnd(signal, "send", 0, log);
    if (sent.kind === "error") return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: command.actionId, reason: String(sent.error) }, { cause: sent.error }) };
    if ("kind" in sent.value) return sent.value;
    return this.#awaitTrack(sent.value, signal, log);
  }

  /** Validates, waits for the servers, plans from fresh /joint_states and sends: a track, or why nothing was sent. */
  async #send(command: MotionCommand, signal: AbortSignal, log: Logger): Promise<MotionEnd | ActionTrack> {
    const invalid = this.#validate(command);
    if (invalid) return invalid;
    const targetServers = this.#serversFor(Object.keys(command.targets));
    const haltsBefore = targetServers.map((sv) => this.#halts.get(serverKey(sv)) ?? 0);
    const servers = await this.#awaitServers(command, signal);
    if (servers) return servers;
    if (signal.aborted || this.#closing.signal.aborted) return this.#refused(command.actionId, "the wait ended before any goal was sent");
    // A stop issued while this motion waited for its server wins: the motion was asked for before the stop.
    const haltedMeanwhile = targetServers.filter((sv, i) => (this.#halts.get(serverKey(sv)) ?? 0) !== haltsBefore[i]);
    if (haltedMeanwhile.length > 0) {
      return this.#refused(command.actionId, `a halt on ${haltedMeanwhile.map((sv) => this.#actionNameOf(sv)).join(", ")} came before the goal was sent`);
    }
    // Planned only now, from the freshest /joint_states, since waiting for a server took time.
    const prepared = this.#prepare(command);
    if ("refused" in prepared) return prepared.refused;

    const runs = prepared.goals.map((g) => new GoalRun(g.server, g.actionName, () => this.#onRunChange(command.actionId)));
    const track: ActionTrack = {
      actionId: command.actionId,
      axes: Object.keys(command.targets),
      start: prepared.start,
      runs,
      planMs: Math.max(...prepared.goals.map((g) => g.durationS)) * 1000,
      final: undefined,
      endedAtMs: undefined,
    };
    this.#remember(track);
    prepared.goals.forEach((g, i) => {
      log.info({ server: g.actionName, duration_s: g.durationS }, "sending goal");
      runs[i]?.start(g.client, g.goal, (feedback) => this.#emitFeedback({ actionId: command.actionId, server: g.server, feedback }));
    });
    return track;
  }

  async queryAction(actionId: string, _options: { voidIfUnknown: boolean; signal: AbortSignal }): Promise<ActionRecord | undefined> {
    // A ROS goal we did not send cannot be looked up, and one in flight cannot be
    // voided, so `voidIfUnknown` has nothing to act on: unknown ids stay undefined.
    const track = this.#tracks.get(actionId);
    return track ? this.#recordOf(track) : undefined;
  }

  /**
   * Cancels our active goals on the affected controllers: JTC then holds the
   * current position itself (or decelerates, with decelerate_on_cancel), which
   * is smoother and more exact than a hold goal built from a /joint_states
   * sample that already lags the arm. Only when a controller is moving under a
   * goal we do not own (another client, e.g. MoveIt) do we preempt it with a
   * hold goal at the measured positions, since we cannot cancel its goal.
   */
  async halt(options: { axes?: readonly string[]; signal: AbortSignal }): Promise<HaltResult> {
    if (this.#closed) return { halted: false, status: this.latestStatus(), error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
    const axes = options.axes ?? [...this.#actuators.keys()];
    const servers = this.#serversFor(axes);
    for (const s of servers) this.#halts.set(serverKey(s), (this.#halts.get(serverKey(s)) ?? 0) + 1);
    const affectedAxes = new Set<string>();
    for (const s of servers) for (const a of this.#axesOf(s)) affectedAxes.add(a);
    const failures = await this.#bounded([options.signal, AbortSignal.timeout(this.#deps.setup.options.cancelTimeoutMs)], async (wait) => {
      const requests: Promise<string | undefined>[] = [];
      for (const server of servers) {
        const ours = this.#activeRuns(server);
        if (ours.length > 0) {
          for (const run of ours) requests.push(this.#cancel(run, wait));
        } else if (this.#axesOf(server).some((a) => this.latestStatus()?.axes[a]?.moving)) {
          requests.push(this.#sendHold(server, wait));
        }
      }
      return (await Promise.all(requests)).filter((f): f is string => f !== undefined);
    });
    const stopped = await this.#bounded([options.signal], (wait) =>
      this.#observer.waitFor((s) => [...affectedAxes].every((a) => s.axes[a] !== undefined && !s.axes[a].moving), wait),
    );
    if (failures.length > 0) {
      return {
        halted: false,
        status: stopped ?? this.latestStatus(),
        error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: "halt", reason: failures.join("; ") }),
      };
    }
    return { halted: stopped !== undefined, status: stopped ?? this.latestStatus() };
  }

  // ---- motion -------------------------------------------------------------

  #validate(command: MotionCommand): MotionEnd | undefined {
    const problem = motionProblem(command, (axis) => this.#actuators.get(axis));
    return problem === undefined ? undefined : this.#refused(command.actionId, problem);
  }

  async #awaitServers(command: MotionCommand, signal: AbortSignal): Promise<MotionEnd | undefined> {
    const ms = this.#deps.setup.options.serverWaitMs;
    for (const server of this.#serversFor(Object.keys(command.targets))) {
      const client = this.#clientOf(server);
      if (!client) return this.#refused(command.actionId, `transport not opened`);
      if (client.isActionServerAvailable()) continue;
      const r = await this.#bounded([signal, AbortSignal.timeout(ms)], (s) => awaitWithin(client.waitForServer(ms), s));
      if (r.kind !== "value" || !r.value) {
        return {
          kind: "refused",
          reason: `action server ${this.#actionNameOf(server)} is not available`,
          error: new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", { operation: `waitForServer ${this.#actionNameOf(server)}`, ms }),
        };
      }
    }
    return undefined;
  }

  #prepare(command: MotionCommand): Prepared {
    const id = command.actionId;
    const { setup, config } = this.#deps;
    const status = this.latestStatus();
    if (!status || this.#now() - status.stampMs > config.staleAfterMs) {
      return {
        refused: {
          kind: "refused",
          reason: `no fresh ${setup.options.jointStatesTopic} to hold the untouched joints at`,
          error: new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: this.kind }),
        },
      };
    }
    const start: Record<string, number> = {};
    for (const axis of Object.keys(command.targets)) {
      const p = status.axes[axis]?.position;
      if (p === undefined) return { refused: this.#refused(id, `${axis} is missing from ${setup.options.jointStatesTopic}`) };
      start[axis] = p;
    }
    const goals: PlannedGoal[] = [];
    for (const server of this.#serversFor(Object.keys(command.targets))) {
      const client = this.#clientOf(server);
      if (!client) return { refused: this.#refused(id, "transport not opened") };
      if (server.kind === "trajectory") {
        const controller = setup.controllers.find((c) => c.name === server.controller) as TrajectoryControllerSetup;
        const current: Record<string, number> = {};
        for (const joint of controller.joints) {
          const p = status.axes[joint]?.position;
          if (p === undefined) return { refused: this.#refused(id, `joint ${joint} of ${controller.name} is missing from ${setup.options.jointStatesTopic}`) };
          current[joint] = p;
        }
        const targets: Record<string, number> = {};
        for (const joint of controller.joints) {
          const t = command.targets[joint];
          if (t !== undefined) targets[joint] = t;
        }
        const plan = buildTrajectoryGoal({
          joints: controller.joints,
          targets,
          current,
          limits: this.#limits,
          speed: command.speed,
          positionTolerance: config.tolerances.position,
          velocityTolerance: setup.options.goalVelocityTolerance,
          goalTimeToleranceS: setup.options.goalTimeToleranceS,
          minMotionS: setup.options.minMotionS,
        });
        goals.push({ server, client, actionName: controller.actionName, goal: plan.goal, durationS: plan.durationS });
      } else if (setup.gripper) {
        const g = setup.gripper;
        const target = command.targets[g.axis] ?? 0;
        const limits = this.#limits.get(g.axis);
        // Gripper controllers move at their own speed; bound the wait by a stroke at the configured limits.
        const durationS = limits ? restToRestTime(Math.abs(target - (start[g.axis] ?? target)), limits.maxVelocity, limits.maxAcceleration) : 0;
        goals.push({ server, client, actionName: g.actionName, goal: buildGripperGoal(g, target), durationS: Math.max(durationS, setup.options.minMotionS) });
      }
    }
    return { goals, start };
  }

  async #awaitTrack(track: ActionTrack, signal: AbortSignal, log: Logger): Promise<MotionEnd> {
    const { options } = this.#deps.setup;
    const responseMs = options.goalResponseTimeoutMs;
    const responded = await this.#bounded([signal, AbortSignal.timeout(responseMs)], (s) => awaitWithin(Promise.all(track.runs.map((r) => r.responded)), s));
    if (responded.kind !== "value") return this.#waitEnd(signal, `sendGoal ${this.#serverNames(track)}`, responseMs, log);
    const lostEarly = this.#lost(track);
    if (lostEarly) return lostEarly;
    if (track.runs.every((r) => r.phase === "rejected")) {
      log.warn("goal rejected");
      return this.#refused(track.actionId, track.runs.map((r) => r.outcome()?.detail ?? r.actionName).join("; "), "ARMB_ERR_ROS_GOAL");
    }

    const resultMs = Math.ceil(track.planMs + options.goalTimeToleranceS * 1000 + options.resultMarginMs);
    const finished = await this.#bounded([signal, AbortSignal.timeout(resultMs)], (s) => awaitWithin(Promise.all(track.runs.map((r) => r.finished)), s));
    if (finished.kind !== "value") return this.#waitEnd(signal, `getResult ${this.#serverNames(track)}`, resultMs, log);
    const lost = this.#lost(track);
    if (lost) return lost;
    await this.#awaitSampleAfterEnd(track, signal);
    const record = this.#recordOf(track);
    if (!record) return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: this.#serverNames(track), reason: "outcome lost" }) };
    log.info({ state: record.state, detail: record.detail }, "goal ended");
    return { kind: "ended", record };
  }

  /**
   * Whether an action that ended short moved can only be told from a sample
   * measured after it ended: wait (briefly: /joint_states is a fast stream) for
   * one. Without it the record says `moved: undefined`, never a guess.
   */
  async #awaitSampleAfterEnd(track: ActionTrack, signal: AbortSignal): Promise<void> {
    const endedAt = track.endedAtMs;
    const final = track.final;
    if (endedAt === undefined || !final || final.moved !== undefined || final.state === "reached") return;
    await this.#bounded([signal, AbortSignal.timeout(this.#deps.config.staleAfterMs)], (wait) => this.#observer.waitFor((s) => s.stampMs >= endedAt, wait));
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

  /** Why a bounded wait ended: our caller's signal, close(), or our own timeout on rclnodejs. */
  #waitEnd(signal: AbortSignal, operation: string, ms: number, log: Logger): MotionEnd {
    if (this.#closing.signal.aborted) return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_TRANSPORT_CLOSED", { transport: this.kind }) };
    if (signal.aborted) return { kind: "wait_ended" };
    log.warn({ operation, ms }, "ROS did not answer in time; the goal is left running");
    return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", { operation, ms }) };
  }

  #lost(track: ActionTrack): MotionEnd | undefined {
    const run = track.runs.find((r) => r.phase === "lost");
    if (!run) return undefined;
    const reason = run.failure instanceof Error ? run.failure.message : String(run.failure);
    return { kind: "link_error", error: new ArmbridgeError("ARMB_ERR_ROS_GOAL", { action: run.actionName, reason }, { cause: run.failure }) };
  }

  #refused(actionId: string, reason: string, code: "ARMB_ERR_MOTION_REFUSED" | "ARMB_ERR_ROS_GOAL" = "ARMB_ERR_MOTION_REFUSED"): MotionEnd {
    const error =
      code === "ARMB_ERR_ROS_GOAL" ? new ArmbridgeError(code, { action: actionId, reason }) : new ArmbridgeError(code, { actionId, reason });
    return { kind: "refused", reason, error };
  }

  // ---- records ------------------------------------------------------------

  #onRunChange(actionId: string): void {
    const track = this.#tracks.get(actionId);
    if (track && !track.final && track.runs.every((r) => r.terminal)) {
      track.endedAtMs = this.#now();
      track.final = this.#computeRecord(track, this.latestStatus());
    }
    this.#observer.publish();
  }

  #recordOf(track: ActionTrack, sample: JointSample | undefined = this.latestStatus()): ActionRecord | undefined {
    if (track.runs.some((r) => r.phase === "lost")) return undefined;
    const final = track.final;
    if (!final) return this.#computeRecord(track, sample);
    if (final.moved === undefined && final.state !== "rejected") {
      const moved = this.#moved(track, true, sample);
      if (moved !== undefined) track.final = { ...final, moved };
    }
    return track.final;
  }

  #computeRecord(track: ActionTrack, sample: JointSample | undefined): ActionRecord {
    const outcomes = track.runs.map((r) => r.outcome());
    const detail = outcomes.map((o, i) => o?.detail ?? `${track.runs[i]?.actionName ?? "?"}: ${track.runs[i]?.phase ?? "?"}`).join("; ");
    const states = outcomes.map((o) => o?.state);
    let state: ActionState;
    if (states.some((s) => s === undefined)) state = "executing";
    else if (states.every((s) => s === "reached")) state = "reached";
    else if (states.every((s) => s === "rejected")) state = "rejected";
    else if (states.includes("faulted")) state = "faulted";
    else if (states.includes("stalled")) state = "stalled";
    else if (states.includes("stopped")) state = "stopped";
    // Some goals ran while another was rejected: the motion is only partly done.
    else state = "faulted";
    return { actionId: track.actionId, state, moved: state === "rejected" ? false : this.#moved(track, state !== "executing", sample), detail };
  }

  /**
   * Evidence from /joint_states: displaced beyond tolerance → true; still and
   * in place in a sample measured after the action ended → false. A sample
   * from before the end proves nothing about "not moved": the arm may have
   * moved between it and the end (a paused stream, or a goal that ran and was
   * cancelled between two samples).
   */
  #moved(track: ActionTrack, ended: boolean, status: JointSample | undefined): boolean | undefined {
    if (!status || this.#now() - status.stampMs > this.#deps.config.staleAfterMs) return undefined;
    let still = true;
    for (const axis of track.axes) {
      const observed = status.axes[axis];
      const from = track.start[axis];
      const tol = this.#actuators.get(axis)?.tolerance ?? 0;
      if (observed === undefined || from === undefined) return undefined;
      if (Math.abs(observed.position - from) > tol) return true;
      if (observed.moving) still = false;
    }
    const measuredAfterEnd = track.endedAtMs !== undefined && status.stampMs >= track.endedAtMs;
    return ended && measuredAfterEnd && still ? false : undefined;
  }

  #remember(track: ActionTrack): void {
    this.#tracks.set(track.actionId, track);
    if (this.#tracks.size <= MAX_TRACKED_ACTIONS) return;
    for (const [id, t] of this.#tracks) {
      if (this.#tracks.size <= MAX_TRACKED_ACTIONS) break;
      if (t.final) this.#tracks.delete(id);
    }
  }

  #recentRecords(sample: JointSample): ActionRecord[] {
    const records: ActionRecord[] = [];
    for (const t of [...this.#tracks.values()].slice(-STATUS_ACTIONS)) {
      const r = this.#recordOf(t, sample);
      if (r) records.push(r);
    }
    return records;
  }

  #emitFeedback(feedback: Ros2Feedback): void {
    for (const listener of [...this.#feedbackListeners]) {
      try {
        listener(feedback);
      } catch (error) {
        this.#log.warn({ action_id: feedback.actionId, err: error }, "feedback listener threw");
      }
    }
  }

  // ---- halt ---------------------------------------------------------------

  async #cancel(run: GoalRun, signal: AbortSignal): Promise<string | undefined> {
    if (!run.handle && run.phase === "sending") {
      // Our goal request is still unanswered: the goal may yet be accepted and
      // move the arm, so wait for the answer and cancel what was accepted.
      const answered = await awaitWithin(run.responded, signal);
      if (answered.kind === "aborted") return `${run.actionName} had not answered our goal request when the halt stopped waiting; the goal may still start`;
    }
    if (run.phase === "lost") return `lost track of our goal on ${run.actionName}; it may still run`;
    const handle = run.handle;
    if (!handle || run.phase === "rejected") return undefined;
    let response: Promise<CancelGoalResponse>;
    try {
      response = handle.cancelGoal();
    } catch (error) {
      return `cancel on ${run.actionName} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const r = await awaitWithin(response, signal);
    if (r.kind === "aborted") return run.terminal ? undefined : `${run.actionName} did not answer the cancel request in time`;
    if (r.kind === "error") return `cancel on ${run.actionName} failed: ${r.error instanceof Error ? r.error.message : String(r.error)}`;
    const code = r.value.return_code;
    if (code === CANCEL_ERROR_NONE || code === CANCEL_ERROR_GOAL_TERMINATED || run.terminal) return undefined;
    return `${run.actionName} refused to cancel (return_code ${code})`;
  }

  async #sendHold(server: GoalServer, signal: AbortSignal): Promise<string | undefined> {
    const status = this.latestStatus();
    const client = this.#clientOf(server);
    if (!status || !client) return `no status to hold ${this.#actionNameOf(server)} at`;
    const { setup, config } = this.#deps;
    let goal: object;
    if (server.kind === "trajectory") {
      const controller = setup.controllers.find((c) => c.name === server.controller) as TrajectoryControllerSetup;
      const current: Record<string, number> = {};
      for (const j of controller.joints) current[j] = status.axes[j]?.position ?? Number.NaN;
      if (Object.values(current).some(Number.isNaN)) return `no position for every joint of ${controller.name}`;
      goal = buildTrajectoryGoal({
        joints: controller.joints,
        targets: current,
        current,
        limits: this.#limits,
        speed: 1,
        positionTolerance: config.tolerances.position,
        velocityTolerance: setup.options.goalVelocityTolerance,
        goalTimeToleranceS: setup.options.goalTimeToleranceS,
        minMotionS: setup.options.minMotionS,
      }).goal;
    } else {
      const g = setup.gripper;
      const p = g ? status.axes[g.axis]?.position : undefined;
      if (!g || p === undefined) return "no gripper position to hold at";
      goal = buildGripperGoal(g, p);
    }
    this.#log.warn({ server: this.#actionNameOf(server) }, "moving under a goal we do not own: preempting it with a hold goal");
    let sent: Promise<{ isAccepted(): boolean }>;
    try {
      sent = client.sendGoal(goal);
    } catch (error) {
      return `hold goal on ${this.#actionNameOf(server)} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    const r = await awaitWithin(sent, signal);
    if (r.kind === "value" && r.value.isAccepted()) return undefined;
    return `hold goal on ${this.#actionNameOf(server)} was ${r.kind === "value" ? "rejected" : "not answered"}`;
  }

  #activeRuns(server: GoalServer): GoalRun[] {
    const runs: GoalRun[] = [];
    for (const t of this.#tracks.values()) {
      for (const r of t.runs) if (!r.terminal && sameServer(r.server, server)) runs.push(r);
    }
    return runs;
  }

  // ---- servers ------------------------------------------------------------

  #serversFor(axes: Iterable<string>): GoalServer[] {
    const { setup } = this.#deps;
    const out: GoalServer[] = [];
    const seen = new Set<string>();
    for (const axis of axes) {
      if (setup.gripper && axis === setup.gripper.axis) {
        if (!seen.has("gripper")) out.push({ kind: "gripper" });
        seen.add("gripper");
        continue;
      }
      const c = setup.controllerOfJoint.get(axis);
      if (c && !seen.has(`controller:${c.name}`)) {
        seen.add(`controller:${c.name}`);
        out.push({ kind: "trajectory", controller: c.name });
      }
    }
    return out;
  }

  #axesOf(server: GoalServer): readonly string[] {
    if (server.kind === "gripper") return this.#deps.setup.gripper ? [this.#deps.setup.gripper.axis] : [];
    return this.#deps.setup.controllers.find((c) => c.name === server.controller)?.joints ?? [];
  }

  #clientOf(server: GoalServer): RclActionClient | undefined {
    return server.kind === "gripper" ? this.#gripperClient : this.#trajectoryClients.get(server.controller);
  }

  #actionNameOf(server: GoalServer): string {
    if (server.kind === "gripper") return this.#deps.setup.gripper?.actionName ?? "gripper";
    return this.#deps.setup.controllers.find((c) => c.name === server.controller)?.actionName ?? server.controller;
  }

  #serverNames(track: ActionTrack): string {
    return track.runs.map((r) => r.actionName).join(", ");
  }

  *#clients(): Iterable<[string, RclActionClient]> {
    yield* this.#trajectoryClients;
    if (this.#gripperClient) yield ["gripper", this.#gripperClient];
  }
}

function serverKey(server: GoalServer): string {
  return server.kind === "gripper" ? "gripper" : `controller:${server.controller}`;
}

function sameServer(a: GoalServer, b: GoalServer): boolean {
  return a.kind === b.kind && (a.kind === "gripper" || (b.kind === "trajectory" && a.controller === b.controller));
}
