import type { ActionRecord, ArmStatus, AxisState } from "../Transport.js";
import { awaitWithin } from "./awaitWithin.js";
import { gripperFromController } from "./gripperMapping.js";
import type { JointStateMessage } from "./rclTypes.js";
import type { GripperSetup } from "./resolveRos2Setup.js";

/** The measured part of a status, before the action records are added. */
export type JointSample = Pick<ArmStatus, "stampMs" | "axes">;

interface AxisSample {
  readonly position: number;
  readonly velocity: number;
  /** Local ms when the message arrived: what freshness and "after the goal ended" are judged on. */
  readonly receivedMs: number;
  /** The publisher's header stamp (ms on its clock): only for ordering and rates within that publisher. */
  readonly headerMs: number;
}

export interface JointStateObserverOptions {
  /** Arm joints reported as axes (others in /joint_states are ignored). */
  readonly joints: readonly string[];
  readonly gripper: GripperSetup | undefined;
  readonly stoppedVelocity: number;
  /**
   * Our action records, included in every status. Given the sample being
   * published, since a record's `moved` is judged on it (latest() is still the
   * previous status at that point).
   */
  readonly actions: (sample: JointSample) => readonly ActionRecord[];
  readonly now?: () => number;
  /**
   * The shortest time between two statuses (ms). A joint_state_broadcaster
   * publishes on every control update — 1 kHz on a Franka — and each status
   * is judged by every waiter; samples in between are merged, and the last
   * one is published at the end of the interval.
   */
  readonly minStatusIntervalMs?: number;
}

/**
 * Turns /joint_states into ArmStatus. Messages may come from several
 * publishers (an arm broadcaster and a gripper driver), each naming only its
 * joints, so samples are merged per axis and the status stamp is the oldest
 * axis stamp: a status is only as fresh as its stalest axis.
 *
 * Status stamps are *receive* times on our clock, never the publisher's header
 * stamp: a controller PC whose clock is half a second off (or a Gazebo on sim
 * time) would otherwise make every sample look stale, or make "measured after
 * the goal ended" never true. The header stamp is only compared with earlier
 * stamps of the same axis (same publisher), to estimate velocity.
 */
export class JointStateObserver {
  readonly #options: JointStateObserverOptions;
  readonly #now: () => number;
  readonly #samples = new Map<string, AxisSample>();
  readonly #listeners = new Set<(status: ArmStatus) => void>();
  /** Every joint name any /joint_states message carried, ours or not, with when it last did: who is publishing. */
  readonly #namesSeen = new Map<string, number>();
  #latest: ArmStatus | undefined;
  #lastPublishedMs = -Infinity;
  #trailing: NodeJS.Timeout | undefined;
  /**
   * Whether the gripper's reported velocity means anything. franka_gripper
   * publishes velocity 0.0 for both fingers, always (gripper_action_server.cpp
   * publishGripperState): its velocity is estimated from positions instead.
   */
  #gripperVelocity: "reported" | "estimated" = "reported";

  constructor(options: JointStateObserverOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  latest(): ArmStatus | undefined {
    return this.#latest;
  }

  setGripperVelocity(source: "reported" | "estimated"): void {
    this.#gripperVelocity = source;
  }

  /** Clears the pending status timer (close). */
  close(): void {
    clearTimeout(this.#trailing);
    this.#trailing = undefined;
  }

  onStatus(listener: (status: ArmStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Subscription callback: malformed messages are dropped, never thrown into rclnodejs's executor. */
  handle(message: unknown): void {
    const msg = message as Partial<JointStateMessage> | undefined;
    if (!msg || !Array.isArray(msg.name) || !msg.position) return;
    const receivedMs = this.#now();
    const stamp = msg.header?.stamp;
    const headerMs = stamp ? stamp.sec * 1000 + stamp.nanosec / 1e6 : receivedMs;
    const gripper = this.#options.gripper;
    let touched = false;
    for (const name of msg.name) if (typeof name === "string") this.#namesSeen.set(name, receivedMs);
    msg.name.forEach((name: string, i: number) => {
      const raw = msg.position?.[i];
      if (raw === undefined || !Number.isFinite(raw)) return;
      const axis = gripper && name === gripper.joint ? gripper.axis : name;
      if (axis !== gripper?.axis && !this.#options.joints.includes(axis)) return;
      const position = gripper && axis === gripper.axis ? gripperFromController(gripper, raw) : raw;
      const isGripper = gripper !== undefined && axis === gripper.axis;
      let velocity = isGripper && this.#gripperVelocity === "estimated" ? undefined : msg.velocity?.[i];
      if (velocity !== undefined && gripper && isGripper)
        velocity = velocity / (gripper.openPosition - gripper.closedPosition);
      if (velocity === undefined || !Number.isFinite(velocity)) {
        // Some drivers publish positions only: estimate from the previous sample.
        const prev = this.#samples.get(axis);
        const dt = prev ? (headerMs - prev.headerMs) / 1000 : 0;
        velocity = prev && dt > 0 ? (position - prev.position) / dt : 0;
      }
      this.#samples.set(axis, { position, velocity, receivedMs, headerMs });
      touched = true;
    });
    if (touched) this.#publishThrottled();
  }

  #publishThrottled(): void {
    const interval = this.#options.minStatusIntervalMs ?? 0;
    const wait = this.#lastPublishedMs + interval - this.#now();
    if (wait <= 0) {
      clearTimeout(this.#trailing);
      this.#trailing = undefined;
      this.publish();
      return;
    }
    this.#trailing ??= setTimeout(() => {
      this.#trailing = undefined;
      this.publish();
    }, wait);
    this.#trailing.unref();
  }

  /** The joint names /joint_states has carried since `sinceMs` (local ms), ours or not, sorted. */
  namesSince(sinceMs: number): string[] {
    return [...this.#namesSeen]
      .filter(([, at]) => at >= sinceMs)
      .map(([name]) => name)
      .sort();
  }

  /** Re-emits the status (e.g. when an action record changed). */
  publish(): void {
    if (this.#samples.size === 0) return;
    const axes: Record<string, AxisState> = {};
    let oldest = Infinity;
    for (const [axis, s] of this.#samples) {
      axes[axis] = {
        position: s.position,
        velocity: s.velocity,
        moving: Math.abs(s.velocity) > this.#options.stoppedVelocity,
      };
      oldest = Math.min(oldest, s.receivedMs);
    }
    const status: ArmStatus = {
      stampMs: oldest,
      axes,
      faults: [],
      actions: this.#options.actions({ stampMs: oldest, axes }),
    };
    this.#latest = status;
    this.#lastPublishedMs = this.#now();
    for (const listener of [...this.#listeners]) listener(status);
  }

  /** Resolves with the first status (the current one included) that satisfies `predicate`, or undefined when `signal` fires. */
  async waitFor(predicate: (status: ArmStatus) => boolean, signal: AbortSignal): Promise<ArmStatus | undefined> {
    const current = this.#latest;
    if (current && predicate(current)) return current;
    let unsubscribe: (() => void) | undefined;
    const found = new Promise<ArmStatus>((resolve) => {
      unsubscribe = this.onStatus((status) => {
        if (predicate(status)) resolve(status);
      });
    });
    try {
      const r = await awaitWithin(found, signal);
      return r.kind === "value" ? r.value : undefined;
    } finally {
      unsubscribe?.();
    }
  }
}
