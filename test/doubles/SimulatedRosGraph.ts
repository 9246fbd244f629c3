/**
 * The ROS graph behind the rclnodejs double: joints, ros2_control controllers
 * (simulated JTCs and gripper controllers), drivers with servers of their own
 * (franka_gripper), a joint_state_broadcaster, optionally a
 * joint_state_publisher aggregating driver topics, UR's
 * speed_scaling_state_broadcaster, /clock, /rosout, parameter services, and a
 * 100 Hz control loop. Each behaviour cites its source in the file that
 * implements it.
 */
import { NEWEST, type Distro } from "./controllerVersions.js";
import { SimClock } from "./simClock.js";
import { SimFrankaGripper, type SimFrankaGripperOptions } from "./SimFrankaGripper.js";
import { GoalRecord, type SimActionServer } from "./simGoalHandles.js";
import { SimGripperController, type SimGripperOptions } from "./SimGripperController.js";
import { SimJointStatePublisher } from "./SimJointStatePublisher.js";
import { SimUrRobotState, type SimUrRobotStateOptions } from "./SimUrRobotState.js";
import { SimTopicBus, topicName, type Reliability, type SimPublisher } from "./simTopicBus.js";
import { SimTrajectoryController, type SimControllerOptions } from "./SimTrajectoryController.js";
import { LOG_LEVEL, rosTime, type LogLevel, type SimWorld } from "./simWorld.js";

export const TYPE_JOINT_STATE = "sensor_msgs/msg/JointState";
export const TYPE_COMPRESSED_IMAGE = "sensor_msgs/msg/CompressedImage";
export const TYPE_STRING = "std_msgs/msg/String";
export const TYPE_FLOAT64 = "std_msgs/msg/Float64";
export const TYPE_CLOCK = "rosgraph_msgs/msg/Clock";
export const TYPE_LOG = "rcl_interfaces/msg/Log";
export const TYPE_SPEED_SCALING = "control_msgs/msg/SpeedScalingFactor";

/** A service the double's graph offers: how a node's createClient reaches it. */
export interface ServiceDouble {
  readonly type: string;
  createClient(
    typeClass: string,
    serviceName: string,
  ): {
    sendRequest(request: object, callback: (response: unknown) => void): void;
    waitForService(timeout?: number): Promise<boolean>;
  };
}

export interface RclnodejsDoubleOptions {
  /** Initial positions of every joint, gripper joint included (controller units). */
  readonly positions: Readonly<Record<string, number>>;
  readonly controllers: readonly SimControllerOptions[];
  readonly gripper?: SimGripperOptions;
  /** franka_gripper's node instead of (or beside) a gripper controller. */
  readonly frankaGripper?: SimFrankaGripperOptions;
  /** Which ROS 2 distro the controllers come from (default jazzy). */
  readonly distro?: Distro;
  /** The ros2_controllers release ("4.40.1", "2.36.0"); default the newest of the distro (controllerVersions.ts). */
  readonly ros2ControllersVersion?: string;
  /** Where the joint_state_broadcaster publishes (default /joint_states). */
  readonly jointStatesTopic?: string;
  /**
   * A joint_state_publisher aggregating `sources` into /joint_states at
   * `rateHz` (Franka: the broadcaster on /franka/joint_states and the gripper
   * node's /franka_gripper/joint_states at 30 Hz). The broadcaster then
   * publishes on `sources[0]`.
   */
  readonly jointStatePublisher?: {
    readonly sources: readonly string[];
    readonly rateHz: number;
    readonly output?: string;
  };
  readonly publishHz?: number;
  /** Delay of every service response (goal, result, cancel), ms. */
  readonly responseDelayMs?: number;
  /** The robot's speed scaling (a UR speed slider), and stock JTC's speed_scaling.initial_scaling_factor. */
  readonly speedScaling?: number;
  /** ur_robot_driver's program and safety state (io_and_status_controller, controller_stopper): see SimUrRobotState. */
  readonly urRobotState?: SimUrRobotStateOptions;
  /** UR's speed_scaling_state_broadcaster: publishes the scaling × 100 (std_msgs/Float64) on every control update. */
  readonly speedScalingBroadcaster?: boolean | { readonly topic?: string };
  /** Sim seconds per wall second; set, there is a sim clock (/clock) and stamps are on it. */
  readonly simTimeRate?: number;
  /** How /clock is published: reliable (ros_gz_bridge) or best effort (rosbag2 play --clock). */
  readonly clockReliability?: Reliability;
  /** Offset (ms) of the joint_state_broadcaster host's clock: negative = behind ours. */
  readonly clockSkewMs?: number;
  /** Amplitude (rad/s) of the noise on measured velocities, at rest too. */
  readonly velocityNoise?: number;
  /** The goal handle timer's period (JTC action_monitor_rate 20 Hz → 50 ms). */
  readonly actionMonitorPeriodMs?: number;
  /** The real controller manager's update period (s), for the deceleration of a hold: UR e-series 0.002, Franka 0.001. */
  readonly controlPeriodS?: number;
  /** Services in the graph by name (MoveIt's /compute_ik: a ComputeIkServiceDouble). */
  readonly services?: Readonly<Record<string, ServiceDouble>>;
  /**
   * A robot_state_publisher: publishes `urdf` on `topic` (default
   * /robot_description) when the graph starts — before any armbridge node
   * exists, so our subscriber joins late — with its durability (default
   * transient_local, as robot_state_publisher does: QoS(1).transient_local(),
   * ros/robot_state_publisher src/robot_state_publisher.cpp @ 01a7be1e).
   */
  readonly robotDescription?: {
    readonly urdf: string;
    readonly topic?: string;
    readonly durability?: "transient_local" | "volatile";
  };
}

export class SimulatedRosGraph implements SimWorld {
  readonly distro: Distro;
  readonly ros2ControllersVersion: string;
  readonly jointStatesTopic: string;
  readonly responseDelayMs: number;
  readonly controlPeriodS: number;
  readonly clock: SimClock;
  readonly bus = new SimTopicBus();
  readonly servers = new Map<string, SimActionServer>();
  readonly controllers = new Map<string, SimTrajectoryController>();
  gripper: SimGripperController | undefined;
  frankaGripper: SimFrankaGripper | undefined;
  jointStatePublisher: SimJointStatePublisher | undefined;
  /** A UR's program and safety state, when the graph is ur_robot_driver's. */
  ur: SimUrRobotState | undefined;
  speedScaling: number;
  clockSkewMs: number;
  /** Node name → its parameters, answered by its parameter services. */
  readonly #parameters = new Map<string, () => Record<string, unknown>>();
  readonly #velocityNoise: number;
  readonly #monitorPeriodMs: number;
  readonly #positions = new Map<string, number>();
  readonly #velocities = new Map<string, number>();
  readonly #noise = new Map<string, number>();
  readonly #blocked = new Set<string>();
  /** joint → the position an object stops it at, and the side (±1) the joint is on. */
  readonly #objects = new Map<string, { readonly at: number; readonly side: number }>();
  /** Services by name (MoveIt's /compute_ik). */
  readonly services = new Map<string, ServiceDouble>();
  readonly #broadcaster: SimPublisher;
  readonly #broadcasterJoints: readonly string[];
  readonly #speedScalingPublisher: SimPublisher | undefined;
  readonly #speedScalingInputs = new Map<string, SimPublisher>();
  readonly #clockPublisher: SimPublisher | undefined;
  readonly #rosout: SimPublisher;
  readonly #robotDescription: SimPublisher | undefined;
  #publishing = true;
  /** Joint names a replacement robot publishes instead of ours (replaceRobot). */
  #publishAs: readonly string[] | undefined;
  readonly #faultTimers = new Set<NodeJS.Timeout>();
  /** False while the graph is partitioned from our node (partition): nothing of ours reaches it, nothing of its reaches us. */
  reachable = true;
  /** JointState messages the joint_state_broadcaster published so far. */
  published = 0;
  /** Everything logged to /rosout, for assertions. */
  readonly logged: Array<{ node: string; level: number; msg: string }> = [];
  #timer: NodeJS.Timeout | undefined;
  #lastMonitorMs = Date.now();
  #seed = 12345;

  constructor(options: RclnodejsDoubleOptions) {
    this.distro = options.distro ?? "jazzy";
    this.ros2ControllersVersion = options.ros2ControllersVersion ?? NEWEST[this.distro];
    this.responseDelayMs = options.responseDelayMs ?? 2;
    this.controlPeriodS = options.controlPeriodS ?? 0.002;
    this.clock = new SimClock(options.simTimeRate);
    this.speedScaling = options.speedScaling ?? 1;
    this.clockSkewMs = options.clockSkewMs ?? 0;
    this.#velocityNoise = options.velocityNoise ?? 0;
    this.#monitorPeriodMs = options.actionMonitorPeriodMs ?? 50;
    for (const [j, p] of Object.entries(options.positions)) {
      this.#positions.set(j, p);
      this.#velocities.set(j, 0);
    }
    for (const [name, service] of Object.entries(options.services ?? {})) this.services.set(topicName(name), service);
    this.#rosout = this.bus.advertise(
      "/rosout",
      TYPE_LOG,
      "rosout",
      { reliability: "reliable", durability: "transient_local" },
      1000,
    );
    if (options.robotDescription) {
      const durability = options.robotDescription.durability ?? "transient_local";
      this.#robotDescription = this.bus.advertise(
        options.robotDescription.topic ?? "/robot_description",
        TYPE_STRING,
        "robot_state_publisher",
        { reliability: "reliable", durability },
      );
      this.#robotDescription.publish({ data: options.robotDescription.urdf });
    }
    for (const c of options.controllers) {
      const sim = new SimTrajectoryController(this, c, this.#monitorPeriodMs);
      this.controllers.set(c.name, sim);
      this.servers.set(topicName(c.actionName), sim);
      this.#parameters.set(nodeOfAction(c.actionName), () => sim.parameters());
      if (sim.traits.stockSpeedScaling) {
        // JTC's ~/speed_scaling_input (≥ 4.39): SystemDefaultsQoS, transient local; whoever sets the slider publishes here.
        this.#speedScalingInputs.set(
          c.name,
          this.bus.advertise(`${nodeOfAction(c.actionName)}/speed_scaling_input`, TYPE_SPEED_SCALING, "speed_slider", {
            reliability: "reliable",
            durability: "transient_local",
          }),
        );
      }
    }
    if (options.urRobotState) this.ur = new SimUrRobotState(this, options.urRobotState);
    if (options.gripper) {
      this.gripper = new SimGripperController(this, options.gripper, this.#monitorPeriodMs);
      this.servers.set(topicName(options.gripper.actionName), this.gripper);
      const g = this.gripper;
      this.#parameters.set(nodeOfAction(options.gripper.actionName), () => g.parameters());
    }
    if (options.frankaGripper) {
      const f = new SimFrankaGripper(this, options.frankaGripper);
      this.frankaGripper = f;
      this.servers.set(topicName(f.actionName), f);
      this.#parameters.set(nodeOfAction(f.actionName), () => f.parameters());
    }
    const frankaJoints = new Set(this.frankaGripper?.joints ?? []);
    this.#broadcasterJoints = [...this.#positions.keys()].filter((j) => !frankaJoints.has(j));
    const jsp = options.jointStatePublisher;
    const output = topicName(options.jointStatesTopic ?? jsp?.output ?? "/joint_states");
    this.jointStatesTopic = output;
    this.#broadcaster = this.bus.advertise(
      jsp ? (jsp.sources[0] ?? "/franka/joint_states") : output,
      TYPE_JOINT_STATE,
      "joint_state_broadcaster",
    );
    if (jsp) {
      this.jointStatePublisher = new SimJointStatePublisher(
        this.bus,
        { sources: jsp.sources.map(topicName), rateHz: jsp.rateHz, joints: [...this.#positions.keys()], output },
        (fn) => fn(),
      );
      const p = this.jointStatePublisher;
      this.#parameters.set("/joint_state_publisher", () => p.parameters());
    }
    const ssb = options.speedScalingBroadcaster;
    if (ssb) {
      const topic = typeof ssb === "object" && ssb.topic ? ssb.topic : "/speed_scaling_state_broadcaster/speed_scaling";
      this.#speedScalingPublisher = this.bus.advertise(topic, TYPE_FLOAT64, "speed_scaling_state_broadcaster");
      this.#parameters.set("/speed_scaling_state_broadcaster", () => ({ state_publish_rate: 100.0, tf_prefix: "" }));
    }
    if (options.simTimeRate !== undefined) {
      this.#clockPublisher = this.bus.advertise(
        "/clock",
        TYPE_CLOCK,
        options.clockReliability === "best_effort" ? "rosbag2_player" : "ros_gz_bridge",
        {
          reliability: options.clockReliability ?? "reliable",
          durability: "volatile",
        },
      );
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

  /** A controller command: a blocked joint does not follow it; an object stops it where it stands. */
  drive(joint: string, position: number, velocity: number): void {
    if (this.#blocked.has(joint)) {
      this.#velocities.set(joint, 0);
      return;
    }
    const object = this.#objects.get(joint);
    if (object !== undefined && (position - object.at) * object.side < 0) {
      this.#positions.set(joint, object.at);
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

  /** Something in the joint's way at `at` (an object between a gripper's fingers): it cannot pass it. */
  placeObject(joint: string, at: number): void {
    this.#objects.set(joint, { at, side: Math.sign(this.position(joint) - at) || 1 });
  }

  /**
   * The speed slider moves (UR: the hardware's speed_scaling state, read by
   * the scaled controller and the broadcaster; stock JTC ≥ 4.39: a message on
   * its ~/speed_scaling_input). 0 is a pause.
   */
  setSpeedScaling(factor: number): void {
    this.speedScaling = factor;
    for (const [name, publisher] of this.#speedScalingInputs) {
      const c = this.controllers.get(name);
      if (c) c.scalingFactor = factor;
      publisher.publish({ factor });
    }
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
    const server = this.servers.get(topicName(actionName));
    if (!server) throw new Error(`no server ${actionName}`);
    server.alive = false;
    if (server instanceof SimTrajectoryController) server.hold();
    if (server instanceof SimGripperController) server.target = undefined;
  }

  /** joint_state_broadcaster stops publishing (e.g. controller_manager died). An aggregator goes on. */
  stopJointStates(): void {
    this.#publishing = false;
  }

  resumeJointStates(): void {
    this.#publishing = true;
  }

  /**
   * Our node is cut off from the graph for `ms` (a network partition, a
   * pulled Ethernet cable to the robot PC): our clients see no server, no
   * JointState reaches us, and every response in flight to us is lost. The
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
   * result ever sent, the hardware holds where it stopped, the
   * joint_state_broadcaster (one of the controllers) stops meanwhile.
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

  /** Another robot answers where ours was: our action servers are gone and the broadcaster names `joints` instead of ours. */
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

  /** The parameters of a node, as its parameter services answer; undefined when no such node runs. */
  parametersOf(node: string): Record<string, unknown> | undefined {
    return this.#parameters.get(topicName(node))?.();
  }

  log(node: string, level: LogLevel, msg: string): void {
    this.logged.push({ node, level, msg });
    const stampMs = this.now();
    this.#rosout.publish({ stamp: rosTime(stampMs), level, name: node, msg, file: "", function: "", line: 0 });
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
  publishCompressedImage(
    topic: string,
    image: {
      readonly format: string;
      readonly data: Uint8Array;
      readonly stampMs?: number;
      readonly reliability?: Reliability;
    },
  ): number {
    const publisher = this.bus.advertise(topic, TYPE_COMPRESSED_IMAGE, "camera", {
      reliability: image.reliability ?? "best_effort",
      durability: "volatile",
    });
    const stampMs = image.stampMs ?? this.now();
    const reached = publisher.publish({
      header: { stamp: rosTime(stampMs), frame_id: "camera_optical_frame" },
      format: image.format,
      data: Uint8Array.from(image.data),
    });
    this.bus.unadvertise(publisher);
    return reached;
  }

  /** Stops the clock; the double's only timer. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.jointStatePublisher?.close();
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
      for (const j of this.#positions.keys())
        this.#noise.set(j, (this.#random() < 0.5 ? -1 : 1) * this.#velocityNoise * (0.5 + 0.5 * this.#random()));
    }
    for (const server of this.servers.values()) if (server.alive) server.tick(dtS);
    // The goal handle timers are wall timers (create_wall_timer), whatever the ROS clock.
    const wall = Date.now();
    if (wall - this.#lastMonitorMs >= this.#monitorPeriodMs) {
      this.#lastMonitorMs = wall;
      for (const server of this.servers.values()) if (server.alive) server.monitor();
    }
    const nowMs = this.now();
    this.#clockPublisher?.publish({ clock: rosTime(nowMs) });
    // speed_scaling_state_broadcaster's update: `period > rclcpp::Duration(1.0 / publish_rate_, 0.0)` builds a
    // Duration from (int32 seconds, uint32 nanoseconds), so 1.0 / 100.0 truncates to 0 s and the check passes on
    // every update: it publishes at the controller manager's rate, not 100 Hz (ur_controllers/src/
    // speed_scaling_state_broadcaster.cpp, Universal_Robots_ROS2_Driver jazzy @ a16a2687). Percent, not a fraction.
    this.#speedScalingPublisher?.publish({ data: this.speedScaling * 100 });
    if (this.#publishing) {
      const names = this.#publishAs ?? this.#broadcasterJoints;
      const stampMs = nowMs + this.clockSkewMs;
      this.published++;
      this.#broadcaster.publish({
        header: { stamp: rosTime(stampMs), frame_id: "" },
        name: [...names],
        position: Float64Array.from(names.map((n) => this.position(n))),
        velocity: Float64Array.from(names.map((n) => this.measuredVelocity(n))),
        effort: new Float64Array(names.length),
      });
    }
    this.jointStatePublisher?.tick(nowMs);
  }
}

/** A controller's (or driver's) node from its action name: `/c/follow_joint_trajectory` → `/c`. */
export function nodeOfAction(actionName: string): string {
  const name = topicName(actionName);
  const cut = name.lastIndexOf("/");
  return cut > 0 ? name.slice(0, cut) : name;
}

export { LOG_LEVEL };
