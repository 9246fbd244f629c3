/**
 * A TEST DOUBLE of the rclnodejs 2.x surface armbridge uses, backed by a
 * simulated ros2_control graph: joint_trajectory_controller (JTC) action
 * servers, a gripper action server, and a joint_state_broadcaster. Never
 * imported by src/.
 *
 * What it reproduces, because the ROS transport must cope with each:
 * - rclnodejs: `init(context, argv)` parses `--ros-args -p k:=v` and
 *   `--params-file`; a Node requires init; callbacks and promise resolutions
 *   are delivered only while the node spins; `sendGoal` resolves on the goal
 *   response (a rejected goal resolves with isAccepted() false); getResult is
 *   separate and sets the handle's status before resolving; no promise has a
 *   timeout; after shutdown or server death nothing settles; an import-time
 *   SIGINT handler that `removeSignalHandlers()` removes; INTEGER parameters
 *   are bigint; JointState arrays are Float64Array.
 * - JTC: one goal at a time; a new goal preempts the active one (Jazzy:
 *   ABORTED with INVALID_GOAL, Humble: CANCELED); cancel → CANCELED with
 *   error_code 0 and the position held; goals naming a subset of the joints are
 *   rejected unless allow_partial_joints_goal; goals with unknown joints,
 *   length mismatches, non-increasing times or a last point with nonzero
 *   velocity are rejected; goal tolerance 0 means "unchecked" and goal time 0
 *   means "wait forever"; motion is interpolated over time_from_start, so
 *   it keeps going whatever the client's waits do.
 * - Gripper (GripperCommand / ParallelGripperCommand): preemption cancels the
 *   old goal, stall detection, cancel holds.
 */
import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";

export const GOAL_STATUS = { UNKNOWN: 0, ACCEPTED: 1, EXECUTING: 2, CANCELING: 3, SUCCEEDED: 4, CANCELED: 5, ABORTED: 6 } as const;
const FJT = { SUCCESSFUL: 0, INVALID_GOAL: -1, INVALID_JOINTS: -2, GOAL_TOLERANCE_VIOLATED: -5 } as const;
const PARAM = { NOT_SET: 0, BOOL: 1, INTEGER: 2, DOUBLE: 3, STRING: 4, BOOL_ARRAY: 6, INTEGER_ARRAY: 7, DOUBLE_ARRAY: 8, STRING_ARRAY: 9 } as const;
const TYPE_FJT = "control_msgs/action/FollowJointTrajectory";
const TYPE_GRIPPER = "control_msgs/action/GripperCommand";
const TYPE_PARALLEL = "control_msgs/action/ParallelGripperCommand";
const TYPE_JOINT_STATE = "sensor_msgs/msg/JointState";

export interface SimControllerOptions {
  readonly name: string;
  readonly actionName: string;
  readonly joints: readonly string[];
  readonly allowPartialJointsGoal?: boolean;
  readonly allowNonzeroVelocityAtTrajectoryEnd?: boolean;
  /** constraints.goal_time: used when a goal's goal_time_tolerance is 0; 0 = wait forever. */
  readonly defaultGoalTimeS?: number;
  /** constraints.<joint>.goal: used when a goal's tolerance is 0; 0 = not checked. */
  readonly defaultGoalTolerance?: number;
}

export interface SimGripperOptions {
  readonly actionName: string;
  readonly kind: "gripper_command" | "parallel_gripper";
  readonly joint: string;
  /** Controller units per second. */
  readonly velocity?: number;
  readonly goalTolerance?: number;
  readonly stallTimeoutS?: number;
}

export interface RclnodejsDoubleOptions {
  /** Initial positions of every joint, gripper joint included (controller units). */
  readonly positions: Readonly<Record<string, number>>;
  readonly controllers: readonly SimControllerOptions[];
  readonly gripper?: SimGripperOptions;
  /** Which JTC preemption behaviour to reproduce. */
  readonly distro?: "jazzy" | "humble";
  readonly jointStatesTopic?: string;
  readonly publishHz?: number;
  /** Delay of every service response (goal, result, cancel), ms. */
  readonly responseDelayMs?: number;
}

type Deliver = (fn: () => void) => void;

interface Pending {
  resolve: (v: unknown) => void;
}

class GoalRecord {
  status: number = GOAL_STATUS.ACCEPTED;
  result: Record<string, unknown> | undefined;
  readonly resultWaiters: Array<{ pending: Pending; deliver: Deliver }> = [];
  constructor(
    readonly id: number,
    readonly server: SimActionServer,
    readonly feedback: ((fb: unknown) => void) | undefined,
    readonly deliver: Deliver,
  ) {}

  finish(status: number, result: Record<string, unknown>): void {
    if (this.status >= GOAL_STATUS.SUCCEEDED) return;
    this.status = status;
    this.result = result;
    for (const w of this.resultWaiters.splice(0)) this.server.respond(w.deliver, () => w.pending.resolve({ status, result }));
  }
}

/** One simulated action server (a JTC or a gripper controller). */
abstract class SimActionServer {
  alive = true;
  active: GoalRecord | undefined;
  readonly goals: GoalRecord[] = [];
  /** Every goal message received, accepted or not, for assertions. */
  readonly received: unknown[] = [];
  constructor(
    readonly world: SimulatedRosGraph,
    readonly actionName: string,
    readonly typeClass: string,
  ) {}

  /** Schedules a response, unless the server is dead: then it never comes. */
  respond(deliver: Deliver, fn: () => void): void {
    if (!this.alive) return;
    deliver(() => {
      if (this.alive) fn();
    });
  }

  abstract validate(goal: unknown): string | undefined;
  abstract accept(goal: unknown, record: GoalRecord): void;
  abstract cancelActive(): void;
  abstract tick(nowMs: number): void;
}

interface TrajectoryPlan {
  readonly joints: readonly string[];
  readonly startPositions: readonly number[];
  readonly points: ReadonlyArray<{ readonly t: number; readonly positions: readonly number[] }>;
  readonly startMs: number;
  readonly goalTolerance: ReadonlyMap<string, number>;
  readonly goalTimeS: number;
}

class SimTrajectoryController extends SimActionServer {
  plan: TrajectoryPlan | undefined;
  constructor(
    world: SimulatedRosGraph,
    readonly options: SimControllerOptions,
  ) {
    super(world, options.actionName, TYPE_FJT);
  }

  validate(goal: unknown): string | undefined {
    const g = goal as { trajectory?: { joint_names?: string[]; points?: Array<{ positions?: ArrayLike<number>; velocities?: ArrayLike<number>; time_from_start?: { sec: number; nanosec: number } }> } };
    const names = g.trajectory?.joint_names ?? [];
    const points = g.trajectory?.points ?? [];
    if (names.length === 0 || points.length === 0) return "empty trajectory";
    for (const n of names) if (!this.options.joints.includes(n)) return `unknown joint ${n}`;
    if (new Set(names).size !== names.length) return "duplicate joint names";
    if (!this.options.allowPartialJointsGoal && names.length !== this.options.joints.length) return "partial joints goal";
    let lastT = -1;
    for (const p of points) {
      if ((p.positions?.length ?? 0) !== names.length) return "positions length mismatch";
      const vl = p.velocities?.length ?? 0;
      if (vl !== 0 && vl !== names.length) return "velocities length mismatch";
      const t = p.time_from_start ? p.time_from_start.sec + p.time_from_start.nanosec / 1e9 : 0;
      if (t <= lastT) return "time_from_start not increasing";
      lastT = t;
    }
    const last = points[points.length - 1];
    if (!this.options.allowNonzeroVelocityAtTrajectoryEnd && last?.velocities && Array.from(last.velocities).some((v) => v !== 0)) {
      return "velocity of last trajectory point is not zero";
    }
    return undefined;
  }

  accept(goal: unknown, record: GoalRecord): void {
    const g = goal as {
      trajectory: { joint_names: string[]; points: Array<{ positions: ArrayLike<number>; time_from_start: { sec: number; nanosec: number } }> };
      goal_tolerance?: Array<{ name: string; position: number }>;
      goal_time_tolerance?: { sec: number; nanosec: number };
    };
    if (this.active) {
      const result = { error_code: FJT.INVALID_GOAL, error_string: "Current goal cancelled due to new incoming action." };
      this.active.finish(this.world.distro === "jazzy" ? GOAL_STATUS.ABORTED : GOAL_STATUS.CANCELED, result);
    }
    const joints = g.trajectory.joint_names;
    const tolerance = new Map<string, number>();
    for (const j of joints) {
      const t = g.goal_tolerance?.find((x) => x.name === j)?.position ?? 0;
      tolerance.set(j, t > 0 ? t : (this.options.defaultGoalTolerance ?? 0));
    }
    const gt = g.goal_time_tolerance ? g.goal_time_tolerance.sec + g.goal_time_tolerance.nanosec / 1e9 : 0;
    this.plan = {
      joints,
      startPositions: joints.map((j) => this.world.position(j)),
      points: g.trajectory.points.map((p) => ({ t: p.time_from_start.sec + p.time_from_start.nanosec / 1e9, positions: Array.from(p.positions) })),
      startMs: this.world.now(),
      goalTolerance: tolerance,
      goalTimeS: gt > 0 ? gt : (this.options.defaultGoalTimeS ?? 0),
    };
    record.status = GOAL_STATUS.EXECUTING;
    this.active = record;
  }

  cancelActive(): void {
    const active = this.active;
    if (!active) return;
    this.hold();
    active.finish(GOAL_STATUS.CANCELED, { error_code: FJT.SUCCESSFUL, error_string: "" });
    this.active = undefined;
  }

  hold(): void {
    this.plan = undefined;
    for (const j of this.options.joints) this.world.setVelocity(j, 0);
  }

  tick(nowMs: number): void {
    const plan = this.plan;
    if (!plan) return;
    const elapsed = (nowMs - plan.startMs) / 1000;
    const end = plan.points[plan.points.length - 1];
    if (!end) return;
    const desired: number[] = [];
    plan.joints.forEach((joint, i) => {
      let from = plan.startPositions[i] ?? 0;
      let t0 = 0;
      let p = from;
      let v = 0;
      for (const point of plan.points) {
        const to = point.positions[i] ?? from;
        if (elapsed < point.t) {
          const dur = point.t - t0;
          const u = Math.max(0, (elapsed - t0) / dur);
          // Cubic with zero velocity at both ends of each segment.
          p = from + (to - from) * (3 * u * u - 2 * u * u * u);
          v = ((to - from) * (6 * u - 6 * u * u)) / dur;
          break;
        }
        from = to;
        t0 = point.t;
        p = to;
        v = 0;
      }
      desired.push(p);
      this.world.drive(joint, p, v);
    });
    const actual = plan.joints.map((j) => this.world.position(j));
    const active = this.active;
    if (active?.feedback) {
      const fb = {
        joint_names: plan.joints,
        desired: { positions: Float64Array.from(desired), velocities: new Float64Array(0), accelerations: new Float64Array(0), effort: new Float64Array(0) },
        actual: { positions: Float64Array.from(actual), velocities: new Float64Array(0), accelerations: new Float64Array(0), effort: new Float64Array(0) },
        error: { positions: Float64Array.from(desired.map((d, i) => d - (actual[i] ?? 0))), velocities: new Float64Array(0), accelerations: new Float64Array(0), effort: new Float64Array(0) },
      };
      const cb = active.feedback;
      this.respond(active.deliver, () => cb(fb));
    }
    if (elapsed < end.t || !active) return;
    const within = plan.joints.every((j, i) => {
      const tol = plan.goalTolerance.get(j) ?? 0;
      return tol === 0 || Math.abs(this.world.position(j) - (end.positions[i] ?? 0)) <= tol;
    });
    if (within) {
      active.finish(GOAL_STATUS.SUCCEEDED, { error_code: FJT.SUCCESSFUL, error_string: "" });
      this.active = undefined;
    } else if (plan.goalTimeS > 0 && elapsed > end.t + plan.goalTimeS) {
      active.finish(GOAL_STATUS.ABORTED, { error_code: FJT.GOAL_TOLERANCE_VIOLATED, error_string: "Aborted due to goal_time_tolerance exceeding by ..." });
      this.active = undefined;
      this.hold();
    }
    // goal time 0: JTC keeps waiting for the tolerance, forever.
  }
}

class SimGripperController extends SimActionServer {
  target: number | undefined;
  lastMoveMs = 0;
  constructor(
    world: SimulatedRosGraph,
    readonly options: SimGripperOptions,
  ) {
    super(world, options.actionName, options.kind === "parallel_gripper" ? TYPE_PARALLEL : TYPE_GRIPPER);
  }

  #targetOf(goal: unknown): number | undefined {
    const g = goal as { command?: { position?: number | ArrayLike<number> } };
    const p = g.command?.position;
    if (this.options.kind === "parallel_gripper") return typeof p === "object" && p.length === 1 ? p[0] : undefined;
    return typeof p === "number" ? p : undefined;
  }

  validate(goal: unknown): string | undefined {
    return this.#targetOf(goal) === undefined ? "wrong number of position values" : undefined;
  }

  accept(goal: unknown, record: GoalRecord): void {
    if (this.active) this.active.finish(GOAL_STATUS.CANCELED, this.#result(false, false));
    this.target = this.#targetOf(goal);
    this.lastMoveMs = this.world.now();
    record.status = GOAL_STATUS.EXECUTING;
    this.active = record;
  }

  #result(reached: boolean, stalled: boolean): Record<string, unknown> {
    const position = this.world.position(this.options.joint);
    return this.options.kind === "parallel_gripper"
      ? { state: { name: [this.options.joint], position: Float64Array.of(position), velocity: new Float64Array(0), effort: Float64Array.of(0) }, stalled, reached_goal: reached }
      : { position, effort: 0, stalled, reached_goal: reached };
  }

  cancelActive(): void {
    if (!this.active) return;
    this.target = undefined;
    this.world.setVelocity(this.options.joint, 0);
    this.active.finish(GOAL_STATUS.CANCELED, this.#result(false, false));
    this.active = undefined;
  }

  tick(nowMs: number, dtS = 0): void {
    const active = this.active;
    const target = this.target;
    if (target === undefined) return;
    const joint = this.options.joint;
    const p = this.world.position(joint);
    const speed = this.options.velocity ?? 0.05;
    const step = Math.sign(target - p) * Math.min(Math.abs(target - p), speed * dtS);
    const before = p;
    this.world.drive(joint, p + step, dtS > 0 ? step / dtS : 0);
    if (this.world.position(joint) !== before) this.lastMoveMs = nowMs;
    if (!active) return;
    if (Math.abs(this.world.position(joint) - target) < (this.options.goalTolerance ?? 0.001)) {
      this.world.setVelocity(joint, 0);
      active.finish(GOAL_STATUS.SUCCEEDED, this.#result(true, false));
      this.active = undefined;
      this.target = undefined;
    } else if (nowMs - this.lastMoveMs > (this.options.stallTimeoutS ?? 0.3) * 1000) {
      this.world.setVelocity(joint, 0);
      active.finish(GOAL_STATUS.ABORTED, this.#result(false, true));
      this.active = undefined;
      this.target = undefined;
    }
  }
}

/** The simulated ROS graph: joints, controllers, the joint_states publisher, a 100 Hz clock. */
export class SimulatedRosGraph {
  readonly distro: "jazzy" | "humble";
  readonly jointStatesTopic: string;
  readonly responseDelayMs: number;
  readonly servers = new Map<string, SimActionServer>();
  readonly controllers = new Map<string, SimTrajectoryController>();
  gripper: SimGripperController | undefined;
  readonly #positions = new Map<string, number>();
  readonly #velocities = new Map<string, number>();
  readonly #blocked = new Set<string>();
  readonly subscribers = new Set<{ topic: string; deliver: Deliver; callback: (msg: unknown) => void }>();
  #publishing = true;
  /** JointState messages published so far. */
  published = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastTick = Date.now();

  constructor(options: RclnodejsDoubleOptions) {
    this.distro = options.distro ?? "jazzy";
    this.jointStatesTopic = normalize(options.jointStatesTopic ?? "/joint_states");
    this.responseDelayMs = options.responseDelayMs ?? 2;
    for (const [j, p] of Object.entries(options.positions)) {
      this.#positions.set(j, p);
      this.#velocities.set(j, 0);
    }
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

  now(): number {
    return Date.now();
  }

  position(joint: string): number {
    return this.#positions.get(joint) ?? 0;
  }

  velocity(joint: string): number {
    return this.#velocities.get(joint) ?? 0;
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
  sendForeignGoal(controller: string, goal: unknown): void {
    const server = this.controllers.get(controller);
    if (!server) throw new Error(`no controller ${controller}`);
    const rec = new GoalRecord(-1, server, undefined, () => undefined);
    server.accept(goal, rec);
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

  /** Stops the clock; the double's only timer. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    const now = this.now();
    const dt = (now - this.#lastTick) / 1000;
    this.#lastTick = now;
    for (const server of this.servers.values()) {
      if (!server.alive) continue;
      if (server instanceof SimGripperController) server.tick(now, dt);
      else server.tick(now);
    }
    if (!this.#publishing) return;
    const names = [...this.#positions.keys()];
    const msg = {
      header: { stamp: { sec: Math.floor(now / 1000), nanosec: (now % 1000) * 1e6 }, frame_id: "" },
      name: names,
      position: Float64Array.from(names.map((n) => this.position(n))),
      velocity: Float64Array.from(names.map((n) => this.velocity(n))),
      effort: new Float64Array(names.length),
    };
    this.published++;
    for (const s of this.subscribers) {
      if (s.topic === this.jointStatesTopic) s.deliver(() => s.callback(msg));
    }
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
    return !this.#destroyed && this.server?.alive === true;
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
        if (record.status >= GOAL_STATUS.SUCCEEDED) return resolve({ return_code: 3, goals_canceling: [] });
        if (server.active === record) server.cancelActive();
        resolve({ return_code: 0, goals_canceling: [{ goal_id: record.id }] });
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
  readonly #subscriptions = new Set<{ topic: string; deliver: Deliver; callback: (msg: unknown) => void }>();
  readonly actionClients = new Set<ActionClientDouble>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(rcl: RclnodejsDouble, name: string) {
    if (!rcl.initialized || rcl.isShutdown()) throw new Error("The context is not valid: call init() first");
    this.rcl = rcl;
    this.#name = name;
    rcl.nodes.add(this);
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
    if (typeClass !== TYPE_JOINT_STATE) throw new TypeError(`the double only publishes ${TYPE_JOINT_STATE}, not ${typeClass}`);
    const sub = { topic: normalize(topic), deliver: this.deliverer(), callback };
    this.#subscriptions.add(sub);
    this.rcl.world.subscribers.add(sub);
    return sub;
  }

  destroySubscription(subscription: object): void {
    this.#subscriptions.delete(subscription as never);
    this.rcl.world.subscribers.delete(subscription as never);
  }

  declareParameter(parameter: ParameterDouble, _descriptor?: unknown, ignoreOverride = false): ParameterDouble {
    if (this.#parameters.has(parameter.name)) throw new Error(`Parameter(${parameter.name}) already declared.`);
    const override = ignoreOverride ? undefined : this.rcl.overrides.get(parameter.name);
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
  readonly overrides = new Map<string, ParameterDouble>();
  readonly nodes = new Set<NodeDouble>();
  readonly Parameter = ParameterDouble;
  readonly ParameterType = PARAM;
  readonly Node: new (name: string, namespace?: string) => NodeDouble;
  readonly ActionClient = ActionClientDouble;

  constructor(world: SimulatedRosGraph) {
    this.world = world;
    this.Node = nodeClassFor(this);
  }

  async init(_context?: unknown, argv: string[] = process.argv): Promise<void> {
    if (this.initialized) throw new Error("The context has already been initialized.");
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string")) throw new TypeError("argv must be an array of strings.");
    this.argv = argv;
    parseRosArgs(argv, this.overrides);
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

/** `--ros-args -p name:=value --params-file FILE [--]`, typed as rcl types them (1 → INTEGER, 1.0 → DOUBLE). */
function parseRosArgs(argv: readonly string[], out: Map<string, ParameterDouble>): void {
  let inRos = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--ros-args") inRos = true;
    else if (a === "--") inRos = false;
    else if (inRos && (a === "-p" || a === "--param")) {
      const spec = argv[++i] ?? "";
      const at = spec.indexOf(":=");
      if (at <= 0) throw new Error(`Couldn't parse parameter override rule: '${spec}'`);
      const name = spec.slice(0, at);
      out.set(name, typed(name, parseDocument(spec.slice(at + 2), { intAsBigInt: true }).toJS()));
    } else if (inRos && a === "--params-file") {
      const doc = parseDocument(readFileSync(argv[++i] ?? "", "utf8"), { intAsBigInt: true }).toJS() as Record<string, { ros__parameters?: Record<string, unknown> }>;
      for (const [nodeKey, section] of Object.entries(doc ?? {})) {
        if (nodeKey !== "/**" && nodeKey !== "armbridge" && nodeKey !== "/armbridge") continue;
        flatten("", section.ros__parameters ?? {}, out);
      }
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
