import { QosPolicy, type Rclnodejs, type RclNode, type RclSubscription } from "./rclTypes.js";

export const MSG_LOG = "rcl_interfaces/msg/Log";
/** rcl_interfaces/msg/Log ERROR. */
const LOG_ERROR = 40;
const KEEP = 32;

export interface LoggedError {
  readonly node: string;
  readonly msg: string;
  /** Local ms when it arrived. */
  readonly receivedMs: number;
}

/**
 * Errors one driver node logs on /rosout. franka_gripper reports a libfranka
 * failure only there: the GripperCommand result of a failed command says
 * `reached_goal: false` and nothing else, while the node logs e.what()
 * (gripper_action_server.cpp executeGripperCommand, franka_ros2 jazzy @
 * 29cb85a6). Volatile: only what is logged from now on.
 */
export class RosoutWatcher {
  readonly #node: RclNode;
  readonly #subscription: RclSubscription;
  readonly #errors: LoggedError[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(rcl: Rclnodejs, node: RclNode, nodeName: string, now: () => number) {
    this.#node = node;
    const bare = nodeName.replace(/^\/+/, "").split("/").pop() ?? nodeName;
    const qos = new rcl.QoS(
      QosPolicy.HISTORY_KEEP_LAST,
      KEEP,
      QosPolicy.RELIABILITY_RELIABLE,
      QosPolicy.DURABILITY_VOLATILE,
    );
    this.#subscription = node.createSubscription(MSG_LOG, "/rosout", { qos }, (msg) => {
      const m = msg as { level?: number; name?: string; msg?: string };
      if (typeof m.level !== "number" || m.level < LOG_ERROR || typeof m.msg !== "string") return;
      // The logger name is the node's, namespaced with dots when the node is.
      if (m.name !== bare && !m.name?.endsWith(`.${bare}`)) return;
      this.#errors.push({ node: m.name, msg: m.msg, receivedMs: now() });
      if (this.#errors.length > KEEP) this.#errors.shift();
      for (const w of [...this.#waiters]) w();
    });
  }

  /** The errors that arrived at or after `sinceMs`. */
  errorsSince(sinceMs: number): LoggedError[] {
    return this.#errors.filter((e) => e.receivedMs >= sinceMs);
  }

  /** Resolves with the errors since `sinceMs` once there is one, or with none when `signal` fires. */
  async waitForError(sinceMs: number, signal: AbortSignal): Promise<LoggedError[]> {
    const now = this.errorsSince(sinceMs);
    if (now.length > 0 || signal.aborted) return now;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.#waiters.delete(check);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const check = (): void => {
        if (this.errorsSince(sinceMs).length > 0) done();
      };
      this.#waiters.add(check);
      signal.addEventListener("abort", done, { once: true });
    });
    return this.errorsSince(sinceMs);
  }

  close(): void {
    try {
      this.#node.destroySubscription(this.#subscription);
    } catch {
      // Destroyed with the node already.
    }
    this.#waiters.clear();
  }
}
