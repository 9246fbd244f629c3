import type { MotionPace } from "../Transport.js";
import { QosPolicy, type FollowJointTrajectoryFeedback, type Rclnodejs, type RclNode } from "./rclTypes.js";
import type { TrajectoryControllerFacts } from "./RosFacts.js";
import { TopicSubscriptions } from "./TopicSubscriptions.js";

export const MSG_FLOAT64 = "std_msgs/msg/Float64";
export const MSG_SPEED_SCALING_FACTOR = "control_msgs/msg/SpeedScalingFactor";

/** A speed scaling at or below this is a pause (UR reports exactly 0 when paused). */
const PAUSED_AT = 0.005;
/** A reading older than this says nothing about now. */
const FRESH_MS = 1000;
/** The feedback window the rate is measured over: long enough to smooth 20 Hz delivery jitter. */
const WINDOW_MS = 400;

interface FeedbackSample {
  /** desired.time_from_start (s): the trajectory time JTC sampled. */
  readonly trajS: number;
  /** header.stamp (s, the controller's clock: sim time under a sim clock). */
  readonly stampS: number;
  /** Local ms when it arrived. */
  readonly receivedMs: number;
}

interface Reading {
  readonly value: number;
  readonly receivedMs: number;
  readonly source: string;
}

export interface MotionPaceMonitorDeps {
  readonly rcl: Rclnodejs;
  readonly node: RclNode;
  /** UR's speed_scaling_state_broadcaster topic (percent); "" for none. */
  readonly broadcasterTopic: string;
  readonly now: () => number;
  /**
   * The node runs on sim time: the controllers' stamps are not wall time, and
   * the pace is measured against arrival (a Gazebo slower than real time
   * stretches it). On wall time the pace is the speed scaling itself, exact
   * from the stamps, free of delivery jitter.
   */
  readonly simTime: boolean;
  /** A source that cannot be subscribed to (its message package missing from this install): said once, and left out. */
  readonly warn: (what: string, error: unknown) => void;
}

/**
 * The arm's pace, from what the controllers say of it:
 *
 * - Feedback of our own goals: JTC stamps each update and puts the sampled
 *   trajectory time in `desired.time_from_start`, advancing it by
 *   `period × scaling_factor_` (joint_trajectory_controller.cpp update,
 *   ros2_controllers 4.42.1; UR's scaled controller the same,
 *   scaled_joint_trajectory_controller.cpp, Universal_Robots_ROS2_Driver
 *   jazzy @ a16a2687). Trajectory time per stamp second is the speed scaling
 *   (0 paused) — the pace on a real robot; under sim time the pace is
 *   trajectory time per wall second of arrival, a simulation slower than
 *   real time included. Works on every controller that scales, whatever its
 *   version.
 * - UR's speed_scaling_state_broadcaster: the hardware's speed scaling × 100
 *   (std_msgs/Float64), published on every control update: known before a
 *   goal's first feedback, and between goals.
 * - Stock JTC ≥ 4.39: `~/speed_scaling_input` (control_msgs/SpeedScalingFactor,
 *   transient local), and speed_scaling.initial_scaling_factor from its
 *   parameters.
 *
 * Controllers whose parameters show no speed scaling (Humble's stock JTC,
 * effort-commanded JTC) are read from their feedback only.
 */
export class MotionPaceMonitor {
  readonly #deps: MotionPaceMonitorDeps;
  readonly #subscriptions: TopicSubscriptions;
  readonly #feedback = new Map<string, FeedbackSample[]>();
  readonly #inputs = new Map<string, Reading>();
  #broadcaster: Reading | undefined;
  readonly #listeners = new Set<() => void>();
  #lastSignature = "";
  #facts: ReadonlyMap<string, TrajectoryControllerFacts> = new Map();

  constructor(deps: MotionPaceMonitorDeps) {
    this.#deps = deps;
    this.#subscriptions = new TopicSubscriptions(deps.node, deps.warn);
  }

  /** Subscribes to the broadcaster and to each stock JTC's speed_scaling_input, as the facts say they exist. */
  start(facts: ReadonlyMap<string, TrajectoryControllerFacts>): void {
    this.#facts = facts;
    const { rcl, broadcasterTopic } = this.#deps;
    const qos = new rcl.QoS(
      QosPolicy.HISTORY_KEEP_LAST,
      1,
      QosPolicy.RELIABILITY_BEST_EFFORT,
      QosPolicy.DURABILITY_VOLATILE,
    );
    if (broadcasterTopic !== "") {
      this.#subscribe(MSG_FLOAT64, broadcasterTopic, qos, (msg) => {
        const data = (msg as { data?: unknown }).data;
        if (typeof data !== "number" || !Number.isFinite(data)) return;
        this.#broadcaster = {
          value: data / 100,
          receivedMs: this.#deps.now(),
          source: `${broadcasterTopic}: ${Math.round(data)} %`,
        };
        this.#changed();
      });
    }
    for (const f of facts.values()) {
      if (f.speedScaling !== "input_topic") continue;
      if (f.initialScaling !== undefined)
        this.#inputs.set(f.name, {
          value: f.initialScaling,
          receivedMs: Number.POSITIVE_INFINITY,
          source: `${f.node} speed_scaling.initial_scaling_factor ${f.initialScaling}`,
        });
      const latched = new rcl.QoS(
        QosPolicy.HISTORY_KEEP_LAST,
        1,
        QosPolicy.RELIABILITY_RELIABLE,
        QosPolicy.DURABILITY_TRANSIENT_LOCAL,
      );
      this.#subscribe(MSG_SPEED_SCALING_FACTOR, `${f.node}/speed_scaling_input`, latched, (msg) => {
        const factor = (msg as { factor?: unknown }).factor;
        if (typeof factor !== "number" || !Number.isFinite(factor)) return;
        // The controller keeps the last factor it was given: this reading does not go stale.
        this.#inputs.set(f.name, {
          value: factor,
          receivedMs: Number.POSITIVE_INFINITY,
          source: `${f.node}/speed_scaling_input: ${factor}`,
        });
        this.#changed();
      });
    }
  }

  #subscribe(type: string, topic: string, qos: object, callback: (msg: unknown) => void): void {
    this.#subscriptions.add(type, topic, qos, callback, "the pace will be read from the controllers' feedback only");
  }

  close(): void {
    this.#subscriptions.close();
    this.#listeners.clear();
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** FollowJointTrajectory feedback of our goal on `controller`. */
  onFeedback(controller: string, feedback: unknown): void {
    const f = feedback as Partial<FollowJointTrajectoryFeedback> | undefined;
    const tfs = f?.desired?.time_from_start;
    const stamp = f?.header?.stamp;
    if (!tfs || !stamp) return;
    const sample: FeedbackSample = {
      trajS: tfs.sec + tfs.nanosec / 1e9,
      stampS: stamp.sec + stamp.nanosec / 1e9,
      receivedMs: this.#deps.now(),
    };
    let window = this.#feedback.get(controller);
    const last = window?.[window.length - 1];
    // A new goal starts its trajectory time again: the old samples measure another trajectory.
    if (!window || (last && sample.trajS < last.trajS)) this.#feedback.set(controller, (window = []));
    if (last && last.stampS === sample.stampS) return; // republished, not a new update
    window.push(sample);
    while (window.length > 2 && sample.receivedMs - (window[1]?.receivedMs ?? 0) >= WINDOW_MS) window.shift();
    this.#changed();
  }

  /** The speed scaling of a controller as last read, or undefined. */
  speedScalingOf(controller: string): number | undefined {
    return this.#controllerPace(controller)?.speedScaling;
  }

  pace(controllers: readonly string[]): MotionPace | undefined {
    let worst: MotionPace | undefined;
    for (const c of controllers) {
      const p = this.#controllerPace(c);
      if (p && (!worst || p.factor < worst.factor)) worst = p;
    }
    return worst;
  }

  #controllerPace(controller: string): MotionPace | undefined {
    const now = this.#deps.now();
    const window = this.#feedback.get(controller) ?? [];
    const first = window[0];
    const last = window[window.length - 1];
    const kind = this.#facts.get(controller)?.speedScaling ?? "unknown";
    const declared =
      kind === "input_topic"
        ? this.#inputs.get(controller)
        : kind === "hardware" || kind === "unknown"
          ? this.#broadcaster
          : undefined;
    // Readings kept by the controller itself (speed_scaling_input) carry receivedMs +∞: never stale.
    const freshDeclared = declared && now - declared.receivedMs <= FRESH_MS ? declared : undefined;
    if (first && last && last !== first && now - last.receivedMs <= FRESH_MS) {
      const dStamp = last.stampS - first.stampS;
      const dWall = (last.receivedMs - first.receivedMs) / 1000;
      const dTraj = last.trajS - first.trajS;
      if (dStamp > 0 && dWall > 0) {
        const scaling = freshDeclared ? freshDeclared.value : dTraj / dStamp;
        const paused = scaling <= PAUSED_AT;
        // Under sim time with a scaling reading, the pace is that scaling × sim seconds per wall second (the
        // stamps): UR's Humble controller leaves desired.time_from_start at 0 until a one-point goal ends (a
        // staircase over more points: the sampled point's time, scaled_joint_trajectory_controller.cpp humble
        // @ eca2357c), so its trajectory time says nothing between points.
        const simPace = freshDeclared ? (freshDeclared.value * dStamp) / dWall : dTraj / dWall;
        // Paused is no progress at all, whatever the window still holds of the motion before the pause.
        const factor = paused ? 0 : Math.max(0, this.#deps.simTime ? simPace : scaling);
        return {
          factor,
          paused,
          speedScaling: clamp01(scaling),
          source: `${controller} feedback: trajectory time at ${factor.toFixed(2)}× wall time${freshDeclared ? `; ${freshDeclared.source}` : ""}`,
          stampMs: last.receivedMs,
        };
      }
    }
    if (!freshDeclared) return undefined;
    return {
      factor: Math.max(0, freshDeclared.value),
      paused: freshDeclared.value <= PAUSED_AT,
      speedScaling: clamp01(freshDeclared.value),
      source: freshDeclared.source,
      stampMs: Math.min(now, freshDeclared.receivedMs),
    };
  }

  /** Tells listeners only when the picture changed: a pause began or ended, or a pace moved by 2 %. */
  #changed(): void {
    const parts: string[] = [];
    for (const c of new Set([...this.#feedback.keys(), ...this.#facts.keys()])) {
      const p = this.#controllerPace(c);
      parts.push(p ? `${c}:${p.paused ? "P" : Math.round(p.factor * 50)}` : `${c}:-`);
    }
    const signature = parts.join(",");
    if (signature === this.#lastSignature) return;
    this.#lastSignature = signature;
    for (const l of [...this.#listeners]) l();
  }
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
