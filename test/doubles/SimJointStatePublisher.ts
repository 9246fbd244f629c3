/**
 * joint_state_publisher aggregating driver topics into one /joint_states, as
 * franka_bringup runs it (`source_list: [franka/joint_states,
 * franka_gripper/joint_states]`, `rate: 30`). Sources read:
 *
 *   [JSP] ros/joint_state_publisher ros2 @ fb29caa6a341556ef8716b583ef32507d001dcdc
 *         joint_state_publisher/joint_state_publisher/joint_state_publisher.py
 *         (source_cb caches each joint's last position/velocity; timer_callback publishes every
 *         joint at `rate` Hz with header.stamp = now, whether or not a source has said anything
 *         since; publish_default_positions: joints no source has reported yet go out at 0)
 *   [FB]  frankarobotics/franka_ros2 jazzy @ 29cb85a677b8f08888a0eb6f553ba89666ef64f7
 *         franka_bringup/launch/franka.launch.py (source_list, joint_state_rate default 30)
 *
 * A driver that dies leaves its joints frozen at their last values in a
 * stream that stays fresh by every stamp and receive time.
 */
import type { SimPublisher, SimTopicBus } from "./simTopicBus.js";
import { rosTime } from "./simWorld.js";

const TYPE_JOINT_STATE = "sensor_msgs/msg/JointState";

export interface SimJointStatePublisherOptions {
  readonly sources: readonly string[];
  readonly rateHz: number;
  /** Every joint of the robot description, in its order. */
  readonly joints: readonly string[];
  readonly output: string;
}

export class SimJointStatePublisher {
  readonly node = "joint_state_publisher";
  readonly #cache = new Map<string, { position: number; velocity: number }>();
  readonly #publisher: SimPublisher;
  readonly #unsubscribe: Array<() => void> = [];
  #lastMs = -Infinity;
  published = 0;

  constructor(
    bus: SimTopicBus,
    readonly options: SimJointStatePublisherOptions,
    deliver: (fn: () => void) => void,
  ) {
    this.#publisher = bus.advertise(options.output, TYPE_JOINT_STATE, this.node);
    for (const source of options.sources) {
      this.#unsubscribe.push(
        bus.subscribe({
          topic: source,
          type: TYPE_JOINT_STATE,
          qos: { reliability: "reliable", durability: "volatile" },
          deliver,
          callback: (msg) =>
            this.#sourceCallback(msg as { name: string[]; position: ArrayLike<number>; velocity: ArrayLike<number> }),
        }),
      );
    }
  }

  parameters(): Record<string, unknown> {
    return {
      source_list: this.options.sources.map((s) => s.replace(/^\//, "")),
      rate: BigInt(this.options.rateHz),
      publish_default_positions: true,
    };
  }

  #sourceCallback(msg: { name: string[]; position: ArrayLike<number>; velocity: ArrayLike<number> }): void {
    msg.name.forEach((name, i) => {
      const entry = this.#cache.get(name) ?? { position: 0, velocity: 0 };
      const p = msg.position[i];
      const v = msg.velocity[i];
      if (p !== undefined) entry.position = p;
      if (v !== undefined) entry.velocity = v;
      this.#cache.set(name, entry);
    });
  }

  /** Called on the graph's clock; publishes at `rateHz`. */
  tick(nowMs: number): void {
    if (nowMs - this.#lastMs < 1000 / this.options.rateHz) return;
    this.#lastMs = nowMs;
    const names = [...this.options.joints];
    this.published++;
    this.#publisher.publish({
      header: { stamp: rosTime(nowMs), frame_id: "" },
      name: names,
      position: Float64Array.from(names.map((n) => this.#cache.get(n)?.position ?? 0)),
      velocity: Float64Array.from(names.map((n) => this.#cache.get(n)?.velocity ?? 0)),
      effort: new Float64Array(0),
    });
  }

  close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
  }
}
