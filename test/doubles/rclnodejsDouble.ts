/**
 * A TEST DOUBLE of the rclnodejs 2.x surface armbridge uses, backed by a
 * simulated ros2_control graph: joint_trajectory_controller (JTC) action
 * servers, a gripper action server, and a joint_state_broadcaster. Never
 * imported by src/. No ROS graph can run where the suite runs, so this is the
 * only ROS the tests see: it reproduces the controllers' awkward corners, each
 * with its source (simControllers.ts lists the commits read).
 *
 * rclnodejs (2.2.0 as installed, node_modules/rclnodejs/lib/node.js):
 * `init(context, argv)` parses `--ros-args -p k:=v` and `--params-file`; a
 * node takes only the `/**` section and the section named exactly as the node
 * (`_getNativeParameterOverrides`: "/**" first, then `this.name()`), so
 * `/armbridge:` or `/ns/armbridge:` keys are silently ignored; a Node requires
 * init; callbacks and promise resolutions are delivered only while the node
 * spins; `sendGoal` resolves on the goal response (a rejected goal resolves
 * with isAccepted() false); getResult is separate and sets the handle's
 * status before resolving; no promise has a timeout; after shutdown or server
 * death nothing settles; an import-time SIGINT handler that
 * `removeSignalHandlers()` removes; INTEGER parameters are bigint; JointState
 * arrays are Float64Array; `node.now()` is sim time when the node has
 * `use_sim_time` (rclnodejs TimeSource), else wall time.
 *
 * The graph (see simControllers.ts for the controllers):
 * - distro / ros2_controllers version → how a JTC preempts (delayed CANCELED
 *   result on Humble and Jazzy < 4.41.0, immediate ABORTED on ≥ 4.41.0);
 * - results and feedback go out on the goal handle timer (action_monitor_rate,
 *   20 Hz by default), so a cancel landing between the success request and the
 *   timer leaves the goal CANCELING until the next goal;
 * - speed scaling (trajectory time advances by period × factor);
 * - a sim clock slower than wall time (`simTimeRate`), header stamps on it;
 * - a joint_state_broadcaster host whose clock is skewed (`clockSkewMs`);
 * - velocity noise on the state interfaces (`velocityNoise`);
 * - controller deactivation (the active goal ABORTED, INVALID_GOAL).
 */
import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { SimClock } from "./simClock.js";
import {
  GOAL_STATUS,
  GoalRecord,
  SimGripperController,
  SimTrajectoryController,
  type Deliver,
  type PreemptionMode,
  type SimActionServer,
  type SimControllerOptions,
  type SimGripperOptions,
  type SimWorld,
} from "./simControllers.js";

export { GOAL_STATUS, JTC_TEXT, type PreemptionMode, type SimControllerOptions, type SimGripperOptions } from "./simControllers.js";

const PARAM = { NOT_SET: 0, BOOL: 1, INTEGER: 2, DOUBLE: 3, STRING: 4, BOOL_ARRAY: 6, INTEGER_ARRAY: 7, DOUBLE_ARRAY: 8, STRING_ARRAY: 9 } as const;
const TYPE_JOINT_STATE = "sensor_msgs/msg/JointState";
const TYPE_STRING = "std_msgs/msg/String";
/** rclnodejs lib/qos.js DurabilityPolicy values. */
const DURABILITY = { SYSTEM_DEFAULT: 0, TRANSIENT_LOCAL: 1, VOLATILE: 2 } as const;

/** rclnodejs lib/qos.js: a plain holder of the four policies this double reads. */
export class QoSDouble {
  constructor(
    readonly history = 0,
    readonly depth = 0,
    readonly reliability = 0,
    readonly durability: number = DURABILITY.SYSTEM_DEFAULT,
  ) {}
}

/** A service the double's graph offers: how a node's createClient reaches it. */
export interface ServiceDouble {
  readonly type: string;
  createClient(typeClass: string, serviceName: string): { sendRequest(request: object, callback: (response: unknown) => void): void; waitForService(timeout?: number): Promise<boolean> };
}

interface StringSubscriber {
  readonly topic: string;
  readonly deliver: Deliver;
  readonly callback: (msg: unknown) => void;
  readonly transientLocal: boolean;
}
const TYPE_COMPRESSED_IMAGE = "sensor_msgs/msg/CompressedImage";
/** The message types the double can carry: what its joint_state_broadcaster publishes, and camera frames a test publishes. */
const TYPES = new Set([TYPE_JOINT_STATE, TYPE_COMPRESSED_IMAGE]);
/** rclnodejs's name for the rules that apply to every node. */
const ALL_NODES = "/**";

export interface RclnodejsDoubleOptions {
  /** Initial positions of every joint, gripper joint included (controller units). */
  readonly positions: Readonly<Record<string, number>>;
  readonly controllers: readonly SimControllerOptions[];
  readonly gripper?: SimGripperOptions;
  /** Which ROS 2 distro the controllers come from (default jazzy). */
  readonly distro?: "jazzy" | "humble";
  /**
   * The ros2_controllers release on Jazzy ("4.40.1", "4.41.0", ...). JTC
   * preemption changed in 4.41.0. Default: the newest (immediate abort).
   * Ignored on Humble (2.x), which always delays the result.
   */
  readonly ros2ControllersVersion?: string;
  readonly jointStatesTopic?: string;
  readonly publishHz?: number;
  /** Delay of every service response (goal, result, cancel), ms. */
  readonly responseDelayMs?: number;
  /** JTC speed scaling factor (a UR speed slider; Jazzy's speed_scaling.initial_scaling_factor). */
  readonly speedScaling?: number;
  /** Sim seconds per wall second; set, there is a sim clock (/clock) and stamps are on it. */
  readonly simTimeRate?: number;
  /** Offset (ms) of the joint_state_broadcaster host's clock: negative = behind ours. */
  readonly clockSkewMs?: number;
  /** Amplitude (rad/s) of the noise on measured velocities, at rest too. */
  readonly velocityNoise?: number;
  /** The goal handle timer's period (JTC action_monitor_rate 20 Hz → 50 ms). */
  readonly actionMonitorPeriodMs?: number;
  /** Services in the graph by name (MoveIt's /compute_ik: a ComputeIkServiceDouble). */
  readonly services?: Readonly<Record<string, ServiceDouble>>;
  /**
   * A robot_state_publisher: publishes `urdf` on `topic` (default
   * /robot_description) when the graph starts — before any armbridge node
   * exists, so our subscriber joins late — with its durability (default
   * transient_local, as robot_state_publisher does).
   */
  readonly robotDescription?: { readonly urdf: string; readonly topic?: string; readonly durability?: "transient_local" | "volatile" };
}

/** "4.40.1" < "4.41.0". */
function versionAtLeast(version: string, min: readonly number[]): boolean {
  const parts = version.split(".").map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < min.length; i++) {
    const a = parts[i] ?? 0;
    const b = min[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** The simulated ROS graph: joints, controllers, the joint_states publisher, a 100 Hz control loop. */
export class SimulatedRosGraph implements SimWorld {
  readonly distro: "jazzy" | "humble";
  readonly preemption: PreemptionMode;
  readonly jointStatesTopic: string;
  readonly responseDelayMs: number;
  readonly clock: SimClock;
  readonly servers = new Map<string, SimActionServer>();
  readonly controllers = new Map<string, SimTrajectoryController>();
  gripper: SimGripperController | undefined;
  speedScaling: number;
  clockSkewMs: number;
  readonly #velocityNoise: number;
  readonly #monitorPeriodMs: number;
  readonly #positions = new Map<string, number>();
  readonly #velocities = new Map<string, number>();
  readonly #noise = new Map<string, number>();
  readonly #blocked = new Set<string>();
  readonly subscribers = new Set<{ topic: string; type: string; reliable: boolean; deliver: Deliver; callback: (msg: unknown) => void }>();
  /** std_msgs/String subscribers (robot_description). */
  readonly stringSubscribers = new Set<StringSubscriber>();
  /** Per topic, the last sample a transient-local publisher keeps for late joiners (depth 1). */
  readonly #retained = new Map<string, string>();
  /** Services by name (MoveIt's /compute_ik). */
  readonly services = new Map<string, ServiceDouble>();
  #publishing = true;
  /** Joint names a replacement robot publishes instead of ours (replaceRobot). */
  #publishAs: readonly string[] | undefined;
  readonly #faultTimers = new Set<NodeJS.Timeout>();
  /** False while the graph is partitioned from our node (partition). */
  reachable = true;
  /** JointState messages published so far. */
  published = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastMonitorMs = Date.now();
  #seed = 12345;

  constructor(options: RclnodejsDoubleOptions) {
    this.distro = options.distro ?? "jazzy";
    this.preemption = this.distro === "jazzy" && versionAtLeast(options.ros2ControllersVersion ?? "4.42.1", [4, 41, 0]) ? "abort_now" : "delayed_cancel";
    this.jointStatesTopic = normalize(options.jointStatesTopic ?? "/joint_states");
    this.responseDelayMs = options.responseDelayMs ?? 2;
    this.clock = new SimClock(options.simTimeRate);
    this.speedScaling = options.speedScaling ?? 1;
    this.clockSkewMs = options.clockSkewMs ?? 0;
    this.#velocityNoise = options.velocityNoise ?? 0;
    this.#monitorPeriodMs = options.actionMonitorPeriodMs ?? 50;
    for (const [j, p] of Object.entries(options.positions)) {
      this.#positions.set(j, p);
      this.#velocities.set(j, 0);
    }
    for (const [name, service] of Object.entries(options.services ?? {})) this.services.set(normalize(name), service);
    if (options.robotDescription) this.publishString(options.robotDescription.topic ?? "/robot_description", options.robotDescription.urdf, options.robotDescription.durability ?? "transient_local");
    for (const c of options.controllers) {
      const sim = new SimTrajectoryController(this, c);
      this.controllers.set(c.name, sim);
      this.servers.set(normalize(c.actionName), sim);
    }
    if (options.gripper) {
      this.gripper = new SimGripperController(this, options.gripper);
      this.servers.set(normalize(options.gripper.actionName), this.gripper);
    }
    const periodMs = 1000 / (options.publishHz ?? 100);
    this.#timer = setInterval(() => this.#tick(), periodMs);
  }

  /** ROS time (ms): the sim clock when there is one, else the wall clock. */
  now(): number {
    return this.clock.now();
  }

  position(joint: string): number {
    return this.#positions.get(joint) ?? 0;
  }

  velocity(joint: string): number {
    return this.#velocities.get(joint) ?? 0;
  }

  measuredVelocity(joint: string): number {
    return this.velocity(joint) + (this.#noise.get(joint) ?? 0);
  }

  /** A controller command: a blocked joint does not follow it. */
  drive(joint: string, position: number, velocity: number): void {
    if (this.#blocked.has(joint)) {
      this.#velocities.set(joint, 0);
      return;
    }
    this.#positions.set(joint, position);
    this.#velocities.set(joint, velocity);
  }

  setVelocity(joint: string, velocity: number): void {
    this.#velocities.set(joint, velocity);
  }

  /** An obstacle: the joint stays where it is whatever it is commanded. */
  blockJoint(joint: string): void {
    this.#blocked.add(joint);
    this.#velocities.set(joint, 0);
  }

  /** Someone else (MoveIt, a teach pendant) sends a goal we do not own. */
  sendForeignGoal(controller: string, goal: unknown): GoalRecord {
    const server = this.controllers.get(controller);
    if (!server) throw new Error(`no controller ${controller}`);
    const rec = new GoalRecord(-1, server, undefined, () => undefined);
    server.accept(goal, rec);
    return rec;
  }

  /** A controller switch or an E-stop: the controller deactivates (and rejects goals until activated). */
  deactivateController(controller: string): void {
    const server = this.controllers.get(controller);
    if (!server) throw new Error(`no controller ${controller}`);
    server.deactivate();
  }

  activateController(controller: string): void {
    this.controllers.get(controller)?.activate();
  }

  /** The controller process dies: every pending and future response never comes; the hardware holds. */
  killServer(actionName: string): void {
    const server = this.servers.get(normalize(actionName));
    if (!server) throw new Error(`no server ${actionName}`);
    server.alive = false;
    if (server instanceof SimTrajectoryController) server.hold();
    if (server instanceof SimGripperController) server.target = undefined;
  }

  /** joint_state_broadcaster stops publishing (e.g. controller_manager died). */
  stopJointStates(): void {
    this.#publishing = false;
  }

  resumeJointStates(): void {
    this.#publishing = true;
  }

  /**
   * Our node is cut off from the graph for `ms` (a network partition, a
   * pulled Ethernet cable to the robot PC): our clients see no server, no
   * /joint_states reach us, and every response in flight to us is lost. The
   * controllers run on: a goal under way finishes while we cannot see it.
   */
  partition(ms: number, onHealed?: (at: number) => void): void {
    this.reachable = false;
    this.#after(ms, () => {
      this.reachable = true;
      onHealed?.(Date.now());
    });
  }

  /**
   * Every controller goes down for `ms` and comes back as a new incarnation
   * (controller_manager restarted): goals in flight are forgotten with no
   * result ever sent, the hardware holds where it stopped, /joint_states
   * stops meanwhile (the joint_state_broadcaster is one of the controllers).
   */
  restartControllers(ms: number, onBack?: (at: number) => void): void {
    for (const server of this.servers.values()) server.crash();
    this.#publishing = false;
    this.#after(ms, () => {
      for (const server of this.servers.values()) server.alive = true;
      this.#publishing = true;
      onBack?.(Date.now());
    });
  }

  /**
   * Another robot answers where ours was: our action servers are gone and
   * /joint_states names `joints` instead of ours.
   */
  replaceRobot(joints: readonly string[]): void {
    for (const server of this.servers.values()) server.crash();
    this.#publishAs = joints;
  }

  #after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#faultTimers.delete(t);
      fn();
    }, ms);
    this.#faultTimers.add(t);
  }

  /** Stops the clock; the double's only timer. */
  /**
   * Publishes a std_msgs/String, as robot_state_publisher publishes the URDF:
   * subscribers present now get it; with `transient_local` (what
   * robot_state_publisher uses, QoS(1).transient_local(), src/robot_state_publisher.cpp
   * @ 01a7be1e) the publisher also keeps it, and a subscriber that joins later
   * gets it on joining — but only if it asked for transient-local durability:
   * a volatile reader gets no history (DDS durability; rclcpp docs "About QoS
   * settings"). A volatile publisher keeps nothing.
   */
  publishString(topic: string, data: string, durability: "transient_local" | "volatile"): void {
    const name = normalize(topic);
    if (durability === "transient_local") this.#retained.set(name, data);
    else this.#retained.delete(name);
    for (const s of this.stringSubscribers) if (s.topic === name) s.deliver(() => s.callback({ data }));
  }

  /** A subscriber joined: a transient-local one gets the retained sample, if any. */
  joinString(sub: StringSubscriber): void {
    this.stringSubscribers.add(sub);
    const kept = this.#retained.get(sub.topic);
    if (kept !== undefined && sub.transientLocal) sub.deliver(() => sub.callback({ data: kept }));
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const t of this.#faultTimers) clearTimeout(t);
    this.#faultTimers.clear();
  }

  #random(): number {
    // A fixed-seed LCG: the same noise on every run.
    this.#seed = (this.#seed * 1103515245 + 12345) % 2147483648;
    return this.#seed / 2147483648;
  }

  #tick(): void {
    const dtS = this.clock.advance();
    if (this.#velocityNoise > 0) {
      // Encoder-derived velocity at rest is never exactly 0: half to full amplitude, either sign.
      for (const j of this.#positions.keys()) this.#noise.set(j, (this.#random() < 0.5 ? -1 : 1) * this.#velocityNoise * (0.5 + 0.5 * this.#random()));
    }
    for (const server of this.servers.values()) if (server.alive) server.tick(dtS);
    // The goal handle timers are wall timers (create_wall_timer), whatever the ROS clock.
    const wall = Date.now();
    if (wall - this.#lastMonitorMs >= this.#monitorPeriodMs) {
      this.#lastMonitorMs = wall;
      for (const server of this.servers.values()) if (server.alive) server.monitor();
    }
    if (!this.#publishing || !this.reachable) return;
    const names = this.#publishAs ? [...this.#publishAs] : [...this.#positions.keys()];
    const stampMs = this.now() + this.clockSkewMs;
    const msg = {
      header: { stamp: { sec: Math.floor(stampMs / 1000), nanosec: Math.round((((stampMs % 1000) + 1000) % 1000) * 1e6) }, frame_id: "" },
      name: names,
      position: Float64Array.from(names.map((n) => this.position(n))),
      velocity: Float64Array.from(names.map((n) => this.measuredVelocity(n))),
      effort: new Float64Array(names.length),
    };
    this.published++;
    for (const s of this.subscribers) {
      if (s.topic === this.jointStatesTopic && s.type === TYPE_JOINT_STATE) s.deliver(() => s.callback(msg));
    }
  }

  /**
   * A camera driver publishing one sensor_msgs/msg/CompressedImage on
   * `topic` (image_transport's compressed plugin). The header stamp is on
   * the ROS clock — sim time when there is a sim clock, as Gazebo's camera
   * stamps are — unless `stampMs` is given (0 = an unfilled stamp). `data`
   * arrives as a Uint8Array, as rclnodejs 2.2.0 delivers a uint8[] field.
   * Published best effort unless `reliability` says otherwise, as camera
   * drivers with sensor-data QoS do.
   * Returns how many subscribers it was delivered to.
   */
  publishCompressedImage(topic: string, image: { readonly format: string; readonly data: Uint8Array; readonly stampMs?: number; readonly reliability?: "reliable" | "best_effort" }): number {
    // A best-effort publisher does not reach a RELIABLE subscription (ROS 2 QoS compatibility rules).
    const bestEffort = (image.reliability ?? "best_effort") === "best_effort";
    const stampMs = image.stampMs ?? this.now();
    const msg = {
      header: { stamp: { sec: Math.floor(stampMs / 1000), nanosec: Math.round((((stampMs % 1000) + 1000) % 1000) * 1e6) }, frame_id: "camera_optical_frame" },
      format: image.format,
      data: Uint8Array.from(image.data),
    };
    let delivered = 0;
    for (const s of this.subscribers) {
      if (s.topic === normalize(topic) && s.type === TYPE_COMPRESSED_IMAGE && !(bestEffort && s.reliable)) {
        s.deliver(() => s.callback(msg));
        delivered++;
      }
    }
    return delivered;
  }
}

function normalize(name: string): string {
  return name.startsWith("/") ? name.slice(1) : name;
}

// ---- the rclnodejs surface ---------------------------------------------------

export class ParameterDouble {
  readonly name: string;
  readonly type: number;
  readonly value: unknown;
  constructor(name: string, type: number, value?: unknown) {
    this.name = name;
    this.type = type;
    this.value = type === PARAM.INTEGER && value !== undefined ? BigInt(value as number) : value;
  }
}

class ClientGoalHandleDouble {
  #status: number;
  constructor(
    readonly client: ActionClientDouble,
    readonly goalId: number,
    readonly accepted: boolean,
    readonly record: GoalRecord | undefined,
  ) {
    this.#status = accepted ? GOAL_STATUS.ACCEPTED : GOAL_STATUS.UNKNOWN;
  }
  isAccepted(): boolean {
    return this.accepted;
  }
  /** Like rclnodejs, tracks the status topic: monotonic, frozen once terminal. */
  get status(): number {
    const live = this.record?.status ?? this.#status;
    if (this.#status < GOAL_STATUS.SUCCEEDED && live > this.#status && this.record?.server.alive) this.#status = live;
    return this.#status;
  }
  set status(value: number) {
    if (this.#status < GOAL_STATUS.SUCCEEDED && value > this.#status) this.#status = value;
  }
  getResult(): Promise<unknown> {
    return this.client.getResult(this);
  }
  cancelGoal(): Promise<{ return_code: number; goals_canceling: unknown[] }> {
    return this.client.cancel(this);
  }
}

export class ActionClientDouble {
  #destroyed = false;
  readonly server: SimActionServer | undefined;
  static #nextGoalId = 1;

  readonly node: NodeDouble;

  constructor(
    node: object,
    readonly typeClass: string,
    readonly actionName: string,
  ) {
    if (!(node instanceof NodeDouble)) throw new TypeError("node must be a Node of this rclnodejs");
    this.node = node;
    if (typeof typeClass !== "string" || !/^\w+\/action\/\w+$/.test(typeClass)) throw new TypeError(`bad action type ${String(typeClass)}`);
    const server = node.rcl.world.servers.get(normalize(actionName.replace(/^~/, `/${node.name()}`)));
    // A client of the wrong type never matches the server.
    this.server = server?.typeClass === typeClass ? server : undefined;
    node.actionClients.add(this);
  }

  isActionServerAvailable(): boolean {
    return !this.#destroyed && this.server?.alive === true && this.node.rcl.world.reachable;
  }

  async waitForServer(timeout?: number): Promise<boolean> {
    const deadline = timeout !== undefined && timeout >= 0 ? Date.now() + timeout : Infinity;
    let waitMs = 5;
    while (!this.isActionServerAvailable() && Date.now() < deadline) {
      waitMs = Math.min(waitMs * 2, 1000, deadline - Date.now());
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    return this.isActionServerAvailable();
  }

  sendGoal(goal: object, feedbackCallback?: (feedback: unknown) => void): Promise<ClientGoalHandleDouble> {
    if (this.#destroyed) throw new Error("action client destroyed");
    const server = this.server;
    const deliver = this.node.deliverer();
    return new Promise((resolve) => {
      // No server: the request goes nowhere and the promise never settles, as in rclnodejs.
      if (!server) return;
      const id = ActionClientDouble.#nextGoalId++;
      server.respond(deliver, () => {
        server.received.push(goal);
        const problem = server.validate(goal);
        if (problem) {
          resolve(new ClientGoalHandleDouble(this, id, false, undefined));
          return;
        }
        const record = new GoalRecord(id, server, feedbackCallback, deliver);
        server.goals.push(record);
        server.accept(goal, record);
        resolve(new ClientGoalHandleDouble(this, id, true, record));
      });
    });
  }

  getResult(handle: ClientGoalHandleDouble): Promise<unknown> {
    const record = handle.record;
    const server = this.server;
    return new Promise<{ status: number; result: unknown }>((resolve) => {
      if (!record || !server) return;
      const pending = { resolve: (v: unknown) => resolve(v as { status: number; result: unknown }) };
      const deliver = this.node.deliverer();
      if (record.result) server.respond(deliver, () => pending.resolve({ status: record.status, result: record.result }));
      else record.resultWaiters.push({ pending, deliver });
    }).then(({ status, result }) => {
      handle.status = status;
      return result;
    });
  }

  cancel(handle: ClientGoalHandleDouble): Promise<{ return_code: number; goals_canceling: unknown[] }> {
    const record = handle.record;
    const server = this.server;
    const deliver = this.node.deliverer();
    return new Promise((resolve) => {
      if (!server) return;
      server.respond(deliver, () => {
        if (!record) return resolve({ return_code: 2, goals_canceling: [] });
        const code = server.cancel(record);
        resolve({ return_code: code, goals_canceling: code === 0 ? [{ goal_id: record.id }] : [] });
      });
    });
  }

  destroy(): void {
    this.#destroyed = true;
    this.node.actionClients.delete(this);
  }
}

export class NodeDouble {
  readonly #name: string;
  readonly rcl: RclnodejsDouble;
  #spinning = false;
  #destroyed = false;
  readonly #queue: Array<() => void> = [];
  readonly #parameters = new Map<string, ParameterDouble>();
  readonly #subscriptions = new Set<{ topic: string; type: string; reliable: boolean; deliver: Deliver; callback: (msg: unknown) => void }>();
  readonly #stringSubscriptions = new Set<StringSubscriber>();
  readonly actionClients = new Set<ActionClientDouble>();
  readonly #timers = new Set<NodeJS.Timeout>();

  /** The overrides that apply to this node: `/**` first, then its exact name (rclnodejs `_getNativeParameterOverrides`). */
  readonly #overrides: ReadonlyMap<string, ParameterDouble>;

  constructor(rcl: RclnodejsDouble, name: string) {
    if (!rcl.initialized || rcl.isShutdown()) throw new Error("The context is not valid: call init() first");
    this.rcl = rcl;
    this.#name = name;
    this.#overrides = new Map([...(rcl.overridesByNode.get(ALL_NODES) ?? []), ...(rcl.overridesByNode.get(name) ?? [])]);
    // rclnodejs's TimeSource declares use_sim_time on every node.
    this.#parameters.set("use_sim_time", this.#overrides.get("use_sim_time") ?? new ParameterDouble("use_sim_time", PARAM.BOOL, false));
    rcl.nodes.add(this);
  }

  /** rclnodejs Node.now(): the /clock time under use_sim_time (0 before the first /clock), else the wall clock. */
  now(): { readonly nanoseconds: bigint } {
    const simTime = this.#parameters.get("use_sim_time")?.value === true;
    const ms = simTime ? (this.rcl.world.clock.simulated ? this.rcl.world.now() : 0) : Date.now();
    return { nanoseconds: BigInt(Math.round(ms * 1e6)) };
  }

  name(): string {
    return this.#name;
  }

  get spinning(): boolean {
    return this.#spinning;
  }

  /** Work reaches callbacks only while the node spins; a destroyed node delivers nothing, ever. */
  deliverer(): Deliver {
    return (fn) => {
      if (this.#destroyed) return;
      if (!this.#spinning) {
        this.#queue.push(fn);
        return;
      }
      const t = setTimeout(() => {
        this.#timers.delete(t);
        if (!this.#destroyed) fn();
      }, this.rcl.world.responseDelayMs);
      this.#timers.add(t);
    };
  }

  spin(_timeout?: number): void {
    if (this.#spinning) throw new Error("The node is already spinning.");
    this.#spinning = true;
    const deliver = this.deliverer();
    for (const fn of this.#queue.splice(0)) deliver(fn);
  }

  createSubscription(typeClass: string, topic: string, optionsOrCallback: object | ((msg: unknown) => void), maybeCallback?: (msg: unknown) => void): object {
    const callback = (typeof optionsOrCallback === "function" ? optionsOrCallback : maybeCallback) as ((msg: unknown) => void) | undefined;
    if (typeof callback !== "function") throw new TypeError("callback must be a function");
    if (typeClass === TYPE_STRING) {
      const qos = typeof optionsOrCallback === "object" ? (optionsOrCallback as { qos?: unknown }).qos : undefined;
      const sub: StringSubscriber = { topic: normalize(topic), deliver: this.deliverer(), callback, transientLocal: qos instanceof QoSDouble && qos.durability === DURABILITY.TRANSIENT_LOCAL };
      this.#stringSubscriptions.add(sub);
      this.rcl.world.joinString(sub);
      return sub;
    }
    if (!TYPES.has(typeClass)) throw new TypeError(`the double only carries ${[...TYPES].join(" and ")}, not ${typeClass}`);
    // rclnodejs's default QoS is profileDefault (RELIABLE); "qos_profile_sensor_data" and "qos_profile_system_default"-style names are profiles.
    const qos = typeof optionsOrCallback === "object" ? (optionsOrCallback as { qos?: unknown }).qos : undefined;
    const reliable = !(qos === "qos_profile_sensor_data" || (typeof qos === "object" && qos !== null && (qos as { reliability?: unknown }).reliability === 2));
    const sub = { topic: normalize(topic), type: typeClass, reliable, deliver: this.deliverer(), callback };
    this.#subscriptions.add(sub);
    this.rcl.world.subscribers.add(sub);
    return sub;
  }

  destroySubscription(subscription: object): void {
    this.#subscriptions.delete(subscription as never);
    this.rcl.world.subscribers.delete(subscription as never);
    this.#stringSubscriptions.delete(subscription as never);
    this.rcl.world.stringSubscribers.delete(subscription as never);
  }

  /**
   * A client of a service in the graph. With no such server (move_group not
   * running), `waitForService(t)` resolves false after t ms (rclnodejs
   * lib/client.js polls isServiceServerAvailable) and a request is never
   * answered.
   */
  createClient(typeClass: string, serviceName: string): ReturnType<ServiceDouble["createClient"]> {
    const service = this.rcl.world.services.get(normalize(serviceName));
    if (service && service.type === typeClass) return service.createClient(typeClass, normalize(serviceName));
    return {
      sendRequest: () => undefined,
      waitForService: (timeout?: number) =>
        new Promise<boolean>((resolve) => {
          if (timeout === undefined || timeout < 0) return; // rclnodejs: no timeout waits forever
          const t = setTimeout(() => {
            this.#timers.delete(t);
            resolve(false);
          }, timeout ?? 0);
          this.#timers.add(t);
        }),
    };
  }

  destroyClient(_client: object): void {
    // Nothing to release: answers from the double's services are dropped by their own close().
  }

  declareParameter(parameter: ParameterDouble, _descriptor?: unknown, ignoreOverride = false): ParameterDouble {
    if (this.#parameters.has(parameter.name)) throw new Error(`Parameter(${parameter.name}) already declared.`);
    const override = ignoreOverride ? undefined : this.#overrides.get(parameter.name);
    const declared = override ?? parameter;
    this.#parameters.set(declared.name, declared);
    return declared;
  }

  hasParameter(name: string): boolean {
    return this.#parameters.has(name);
  }

  getParameter(name: string): ParameterDouble {
    return this.#parameters.get(name) ?? new ParameterDouble(name, PARAM.NOT_SET);
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#spinning = false;
    for (const s of this.#subscriptions) this.rcl.world.subscribers.delete(s);
    for (const s of this.#stringSubscriptions) this.rcl.world.stringSubscribers.delete(s);
    for (const c of [...this.actionClients]) c.destroy();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.rcl.nodes.delete(this);
  }
}

/** The module object: what `import rclnodejs from "rclnodejs"` would give. */
export class RclnodejsDouble {
  readonly world: SimulatedRosGraph;
  initialized = false;
  #shutdown = false;
  /** rclnodejs installs a SIGINT handler on import; modelled as a flag, the real process is left alone. */
  sigintHandlerInstalled = true;
  argv: string[] = [];
  /** Parameter rules by node name as written (`/**`, `armbridge`, `/armbridge`, ...). */
  readonly overridesByNode = new Map<string, Map<string, ParameterDouble>>();
  readonly nodes = new Set<NodeDouble>();
  readonly Parameter = ParameterDouble;
  readonly ParameterType = PARAM;
  readonly Node: new (name: string, namespace?: string) => NodeDouble;
  readonly ActionClient = ActionClientDouble;
  readonly QoS = QoSDouble;

  constructor(world: SimulatedRosGraph) {
    this.world = world;
    this.Node = nodeClassFor(this);
  }

  async init(_context?: unknown, argv: string[] = process.argv): Promise<void> {
    if (this.initialized) throw new Error("The context has already been initialized.");
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) throw new TypeError("argv must be an array of strings.");
    this.argv = argv;
    parseRosArgs(argv, this.overridesByNode);
    this.initialized = true;
  }

  createNode(name: string, namespace?: string): NodeDouble {
    return new this.Node(name, namespace);
  }

  spin(node: NodeDouble, timeout?: number): void {
    node.spin(timeout);
  }

  shutdown(): void {
    for (const n of [...this.nodes]) n.destroy();
    this.#shutdown = true;
  }

  isShutdown(): boolean {
    return this.#shutdown;
  }

  removeSignalHandlers(): void {
    this.sigintHandlerInstalled = false;
  }
}

function nodeClassFor(rcl: RclnodejsDouble): new (name: string, namespace?: string) => NodeDouble {
  return class extends NodeDouble {
    constructor(name: string, _namespace?: string) {
      super(rcl, name);
    }
  };
}

/**
 * `--ros-args -p [node:]name:=value --params-file FILE [--]`, typed as rcl types
 * them (1 → INTEGER, 1.0 → DOUBLE). Every section of a params file is kept
 * under its key as written; which apply to a node is decided when it is made.
 */
function parseRosArgs(argv: readonly string[], out: Map<string, Map<string, ParameterDouble>>): void {
  const rulesFor = (node: string): Map<string, ParameterDouble> => {
    let m = out.get(node);
    if (!m) out.set(node, (m = new Map()));
    return m;
  };
  let inRos = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--ros-args") inRos = true;
    else if (a === "--") inRos = false;
    else if (inRos && (a === "-p" || a === "--param")) {
      const spec = argv[++i] ?? "";
      const at = spec.indexOf(":=");
      if (at <= 0) throw new Error(`Couldn't parse parameter override rule: '${spec}'`);
      const key = spec.slice(0, at);
      const colon = key.indexOf(":");
      const node = colon > 0 ? key.slice(0, colon) : ALL_NODES;
      const name = colon > 0 ? key.slice(colon + 1) : key;
      rulesFor(node).set(name, typed(name, parseDocument(spec.slice(at + 2), { intAsBigInt: true }).toJS()));
    } else if (inRos && a === "--params-file") {
      const doc = parseDocument(readFileSync(argv[++i] ?? "", "utf8"), { intAsBigInt: true }).toJS() as Record<string, { ros__parameters?: Record<string, unknown> }>;
      for (const [nodeKey, section] of Object.entries(doc ?? {})) flatten("", section.ros__parameters ?? {}, rulesFor(nodeKey));
    }
  }
}

function flatten(prefix: string, obj: Record<string, unknown>, out: Map<string, ParameterDouble>): void {
  for (const [k, v] of Object.entries(obj)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object" && !Array.isArray(v)) flatten(name, v as Record<string, unknown>, out);
    else out.set(name, typed(name, v));
  }
}

function typed(name: string, v: unknown): ParameterDouble {
  if (typeof v === "bigint") return new ParameterDouble(name, PARAM.INTEGER, v);
  if (typeof v === "number") return new ParameterDouble(name, PARAM.DOUBLE, v);
  if (typeof v === "boolean") return new ParameterDouble(name, PARAM.BOOL, v);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === "string")) return new ParameterDouble(name, PARAM.STRING_ARRAY, v);
    if (v.every((x) => typeof x === "bigint")) return new ParameterDouble(name, PARAM.INTEGER_ARRAY, v);
    if (v.every((x) => typeof x === "number" || typeof x === "bigint")) return new ParameterDouble(name, PARAM.DOUBLE_ARRAY, v.map(Number));
    if (v.every((x) => typeof x === "boolean")) return new ParameterDouble(name, PARAM.BOOL_ARRAY, v);
  }
  return new ParameterDouble(name, PARAM.STRING, String(v));
}

export interface RclnodejsDoubleHandle {
  readonly rcl: RclnodejsDouble;
  readonly world: SimulatedRosGraph;
  close(): void;
}

export function createRclnodejsDouble(options: RclnodejsDoubleOptions): RclnodejsDoubleHandle {
  const world = new SimulatedRosGraph(options);
  const rcl = new RclnodejsDouble(world);
  return {
    rcl,
    world,
    close: () => {
      rcl.shutdown();
      world.close();
    },
  };
}
