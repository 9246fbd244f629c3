import type { RclNode, RclSubscription } from "./rclTypes.js";

/**
 * The subscriptions a watcher of the ROS graph holds, made and destroyed
 * together. A topic whose type cannot be subscribed to (its message package
 * is not installed, say) costs what the watcher reads from it, not the
 * bridge: it is said once with what is lost, and the others go on.
 */
export class TopicSubscriptions {
  readonly #node: RclNode;
  readonly #warn: (what: string, error: unknown) => void;
  readonly #held: RclSubscription[] = [];

  constructor(node: RclNode, warn: (what: string, error: unknown) => void) {
    this.#node = node;
    this.#warn = warn;
  }

  /** Subscribes `read` to `topic`; `lost` says what goes unread when that fails. */
  add(type: string, topic: string, qos: object, read: (msg: unknown) => void, lost: string): void {
    try {
      this.#held.push(this.#node.createSubscription(type, topic, { qos }, read));
    } catch (error) {
      this.#warn(`${type} on ${topic}: ${lost}`, error);
    }
  }

  close(): void {
    for (const s of this.#held.splice(0)) {
      try {
        this.#node.destroySubscription(s);
      } catch {
        // Destroyed with the node already.
      }
    }
  }
}
