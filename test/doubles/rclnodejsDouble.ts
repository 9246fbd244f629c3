/**
 * A TEST DOUBLE of the rclnodejs 2.x surface armbridge uses, backed by a
 * simulated ros2_control graph (SimulatedRosGraph.ts). Never imported by
 * src/. No ROS graph can run where the suite runs, so this is the only ROS
 * the tests see: it reproduces the controllers' and drivers' awkward corners,
 * each with its source (in the file that implements it).
 *
 * rclnodejs (2.2.0 as installed, node_modules/rclnodejs/lib/node.js):
 * `init(context, argv)` parses `--ros-args -p k:=v` and `--params-file`; a
 * node takes only the `/**` section and the section named exactly as the node
 * (`_getNativeParameterOverrides`: "/**" first, then `this.name()`), so
 * `/armbridge:` or `/ns/armbridge:` keys are silently ignored; a Node requires
 * init; callbacks and promise resolutions are delivered only while the node
 * spins; `sendGoal` resolves on the goal response (a rejected goal resolves
 * with isAccepted() false); getResult is separate and sets the handle's
 * status before resolving; no action promise has a timeout; after shutdown or
 * server death nothing settles; an import-time SIGINT handler that
 * `removeSignalHandlers()` removes; INTEGER parameters are bigint; JointState
 * arrays are Float64Array; `node.now()` is sim time when the node has
 * `use_sim_time` — from the TimeSource's own /clock subscription, made with
 * the default (RELIABLE) QoS (lib/time_source.js `_subscribeToClockTopic`
 * passes no options), so a best-effort /clock never reaches it and now()
 * stays 0 — else wall time; a node's parameter services
 * (`<node>/list_parameters`, `<node>/get_parameters`) answer for the graph's
 * controllers and drivers, and never for a node that is not running;
 * `getPublishersInfoByTopic` lists node_name / node_namespace / topic_type.
 */
import { TYPE_BOOL, TYPE_UR_ROBOT_MODE, TYPE_UR_SAFETY_MODE } from "./SimUrRobotState.js";
import { GOAL_STATUS, GoalRecord, type SimActionServer } from "./simGoalHandles.js";
import { ALL_NODES, PARAM, ParameterDouble, parseRosArgs, typedParameter } from "./rosArgsDouble.js";
import {
  SimulatedRosGraph,
  TYPE_CLOCK,
  TYPE_COMPRESSED_IMAGE,
  TYPE_FLOAT64,
  TYPE_JOINT_STATE,
  TYPE_LOG,
  TYPE_SPEED_SCALING,
  TYPE_STRING,
  type RclnodejsDoubleOptions,
  type ServiceDouble,
} from "./SimulatedRosGraph.js";
import { topicName, type Deliver, type TopicQos } from "./simTopicBus.js";

export { GOAL_STATUS, type PreemptionMode } from "./simGoalHandles.js";
export { JTC_TEXT, FJT, type SimControllerOptions, type StopRecord } from "./SimTrajectoryController.js";
export { type SimGripperOptions } from "./SimGripperController.js";
export { FRANKA_TEXT, type SimFrankaGripperOptions } from "./SimFrankaGripper.js";
export { SimulatedRosGraph, type RclnodejsDoubleOptions, type ServiceDouble } from "./SimulatedRosGraph.js";
export { ParameterDouble } from "./rosArgsDouble.js";
export { isHaltGoal, motionGoals, preemptedByOthers } from "./haltGoals.js";

/** rclnodejs lib/qos.js policy values. */
const RELIABILITY = { SYSTEM_DEFAULT: 0, RELIABLE: 1, BEST_EFFORT: 2 } as const;
const DURABILITY = { SYSTEM_DEFAULT: 0, TRANSIENT_LOCAL: 1, VOLATILE: 2 } as const;

/** The message types the double can carry; a subscription to any other fails, as one to an unknown package does. */
const TYPES = new Set([
  TYPE_JOINT_STATE,
  TYPE_COMPRESSED_IMAGE,
  TYPE_STRING,
  TYPE_FLOAT64,
  TYPE_CLOCK,
  TYPE_LOG,
  TYPE_SPEED_SCALING,
  TYPE_UR_SAFETY_MODE,
  TYPE_UR_ROBOT_MODE,
  TYPE_BOOL,
]);

/** rclnodejs lib/qos.js: a plain holder of the four policies this double reads. */
export class QoSDouble {
  constructor(
    readonly history = 0,
    readonly depth = 0,
    readonly reliability = 0,
    readonly durability: number = DURABILITY.SYSTEM_DEFAULT,
  ) {}
}

/** A QoS as rclnodejs takes it (a QoS object or a profile name) → the policies that decide matching. */
function topicQos(qos: unknown): TopicQos {
  if (qos === "qos_profile_sensor_data") return { reliability: "best_effort", durability: "volatile" };
  if (typeof qos === "object" && qos !== null) {
    const q = qos as { reliability?: unknown; durability?: unknown };
    return {
      reliability: q.reliability === RELIABILITY.BEST_EFFORT ? "best_effort" : "reliable",
      durability: q.durability === DURABILITY.TRANSIENT_LOCAL ? "transient_local" : "volatile",
    };
  }
  return { reliability: "reliable", durability: "volatile" };
}

// ---- the rclnodejs surface ---------------------------------------------------

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
    if (typeof typeClass !== "string" || !/^\w+\/action\/\w+$/.test(typeClass))
      throw new TypeError(`bad action type ${String(typeClass)}`);
    const server = node.rcl.world.servers.get(topicName(actionName.replace(/^~/, `/${node.name()}`)));
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
      if (record.result)
        server.respond(deliver, () => pending.resolve({ status: record.status, result: record.result }));
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

const SRV_LIST_PARAMETERS = "rcl_interfaces/srv/ListParameters";
const SRV_GET_PARAMETERS = "rcl_interfaces/srv/GetParameters";

/** rcl_interfaces/msg/ParameterValue for a value, as rclnodejs delivers it (integers as bigint). */
function parameterValueMessage(value: unknown): object {
  const p = typedParameter("", value);
  const empty = {
    bool_value: false,
    integer_value: 0n,
    double_value: 0,
    string_value: "",
    byte_array_value: [],
    bool_array_value: [],
    integer_array_value: [],
    double_array_value: [],
    string_array_value: [],
  };
  switch (p.type) {
    case PARAM.BOOL:
      return { ...empty, type: p.type, bool_value: p.value };
    case PARAM.INTEGER:
      return { ...empty, type: p.type, integer_value: p.value };
    case PARAM.DOUBLE:
      return { ...empty, type: p.type, double_value: p.value };
    case PARAM.STRING:
      return { ...empty, type: p.type, string_value: p.value };
    case PARAM.STRING_ARRAY:
      return { ...empty, type: p.type, string_array_value: p.value };
    case PARAM.DOUBLE_ARRAY:
      return { ...empty, type: p.type, double_array_value: Float64Array.from(p.value as number[]) };
    case PARAM.INTEGER_ARRAY:
      return { ...empty, type: p.type, integer_array_value: p.value };
    case PARAM.BOOL_ARRAY:
      return { ...empty, type: p.type, bool_array_value: p.value };
    default:
      return { ...empty, type: PARAM.NOT_SET };
  }
}

export class NodeDouble {
  readonly #name: string;
  readonly rcl: RclnodejsDouble;
  #spinning = false;
  #destroyed = false;
  readonly #queue: Array<() => void> = [];
  readonly #parameters = new Map<string, ParameterDouble>();
  readonly #subscriptions = new Map<object, () => void>();
  readonly actionClients = new Set<ActionClientDouble>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** The TimeSource's last /clock time (ms), once one arrived. */
  #clockMs: number | undefined;
  #clockSubscription: (() => void) | undefined;

  /** The overrides that apply to this node: `/**` first, then its exact name (rclnodejs `_getNativeParameterOverrides`). */
  readonly #overrides: ReadonlyMap<string, ParameterDouble>;

  constructor(rcl: RclnodejsDouble, name: string) {
    if (!rcl.initialized || rcl.isShutdown()) throw new Error("The context is not valid: call init() first");
    this.rcl = rcl;
    this.#name = name;
    this.#overrides = new Map([
      ...(rcl.overridesByNode.get(ALL_NODES) ?? []),
      ...(rcl.overridesByNode.get(name) ?? []),
    ]);
    // rclnodejs's TimeSource declares use_sim_time on every node and, when true, subscribes to /clock with default QoS.
    const useSimTime = this.#overrides.get("use_sim_time") ?? new ParameterDouble("use_sim_time", PARAM.BOOL, false);
    this.#parameters.set("use_sim_time", useSimTime);
    if (useSimTime.value === true) {
      this.#clockSubscription = rcl.world.bus.subscribe({
        topic: "/clock",
        type: TYPE_CLOCK,
        qos: { reliability: "reliable", durability: "volatile" },
        deliver: this.deliverer(),
        callback: (msg) => {
          const c = (msg as { clock: { sec: number; nanosec: number } }).clock;
          this.#clockMs = c.sec * 1000 + c.nanosec / 1e6;
        },
      });
    }
    rcl.nodes.add(this);
  }

  /** rclnodejs Node.now(): the last /clock time under use_sim_time (0 before the first), else the wall clock. */
  now(): { readonly nanoseconds: bigint } {
    const simTime = this.#parameters.get("use_sim_time")?.value === true;
    const ms = simTime ? (this.#clockMs ?? 0) : Date.now();
    return { nanoseconds: BigInt(Math.round(ms * 1e6)) };
  }

  name(): string {
    return this.#name;
  }

  get spinning(): boolean {
    return this.#spinning;
  }

  /**
   * Work reaches callbacks only while the node spins; a destroyed node
   * delivers nothing, ever; a node partitioned from the graph loses what
   * was sent to it, in flight included.
   */
  deliverer(): Deliver {
    return (fn) => {
      if (this.#destroyed || !this.rcl.world.reachable) return;
      if (!this.#spinning) {
        this.#queue.push(fn);
        return;
      }
      const t = setTimeout(() => {
        this.#timers.delete(t);
        if (!this.#destroyed && this.rcl.world.reachable) fn();
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

  createSubscription(
    typeClass: string,
    topic: string,
    optionsOrCallback: object | ((msg: unknown) => void),
    maybeCallback?: (msg: unknown) => void,
  ): object {
    const callback = (typeof optionsOrCallback === "function" ? optionsOrCallback : maybeCallback) as
      ((msg: unknown) => void) | undefined;
    if (typeof callback !== "function") throw new TypeError("callback must be a function");
    if (!TYPES.has(typeClass)) throw new TypeError(`the double carries ${[...TYPES].join(", ")}, not ${typeClass}`);
    // rclnodejs's default QoS is profileDefault (RELIABLE, VOLATILE).
    const qos = typeof optionsOrCallback === "object" ? (optionsOrCallback as { qos?: unknown }).qos : undefined;
    const handle = { topic: topicName(topic), type: typeClass };
    const unsubscribe = this.rcl.world.bus.subscribe({
      topic,
      type: typeClass,
      qos: topicQos(qos),
      deliver: this.deliverer(),
      callback,
    });
    this.#subscriptions.set(handle, unsubscribe);
    return handle;
  }

  destroySubscription(subscription: object): void {
    this.#subscriptions.get(subscription)?.();
    this.#subscriptions.delete(subscription);
  }

  /** rclnodejs getPublishersInfoByTopic: who publishes on a topic (TopicEndpointInfo). */
  getPublishersInfoByTopic(
    topic: string,
    _noDemangle = false,
  ): Array<{ node_name: string; node_namespace: string; topic_type: string }> {
    return this.rcl.world.bus
      .publishersOf(topic)
      .map((p) => ({ node_name: p.node, node_namespace: p.namespace, topic_type: p.type }));
  }

  countPublishers(topic: string): number {
    return this.rcl.world.bus.publishersOf(topic).length;
  }

  /**
   * A client of a service in the graph. With no such server (move_group not
   * running), `waitForService(t)` resolves false after t ms (rclnodejs
   * lib/client.js polls isServiceServerAvailable) and a request is never
   * answered.
   */
  createClient(typeClass: string, serviceName: string): ReturnType<ServiceDouble["createClient"]> {
    const service = this.rcl.world.services.get(topicName(serviceName));
    if (service && service.type === typeClass) return service.createClient(typeClass, topicName(serviceName));
    if (typeClass === SRV_LIST_PARAMETERS || typeClass === SRV_GET_PARAMETERS)
      return this.#parameterService(typeClass, topicName(serviceName));
    return this.#absentService();
  }

  /**
   * A node's parameter services (rclcpp's ParameterService: <node>/list_parameters,
   * <node>/get_parameters), answered from the graph's record of that node's
   * parameters; a node that is not running answers nothing, ever.
   */
  #parameterService(typeClass: string, serviceName: string): ReturnType<ServiceDouble["createClient"]> {
    const nodeName = serviceName.replace(/\/(list|get)_parameters$/, "");
    const world = this.rcl.world;
    if (!world.parametersOf(nodeName)) return this.#absentService();
    const deliver = this.deliverer();
    return {
      waitForService: () => Promise.resolve(true),
      sendRequest: (request: object, callback: (response: unknown) => void) => {
        const params = world.parametersOf(nodeName);
        if (!params) return;
        if (typeClass === SRV_LIST_PARAMETERS) {
          deliver(() => callback({ result: { names: Object.keys(params), prefixes: [] } }));
          return;
        }
        const names = (request as { names?: readonly string[] }).names ?? [];
        deliver(() =>
          callback({
            values: names.map((n) => (n in params ? parameterValueMessage(params[n]) : { type: PARAM.NOT_SET })),
          }),
        );
      },
    };
  }

  #absentService(): ReturnType<ServiceDouble["createClient"]> {
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
    for (const unsubscribe of this.#subscriptions.values()) unsubscribe();
    this.#subscriptions.clear();
    this.#clockSubscription?.();
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
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string"))
      throw new TypeError("argv must be an array of strings.");
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
