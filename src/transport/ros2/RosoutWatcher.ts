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

/** Whether a logged ERROR line (its logger's name, its text) is one the watcher keeps. */
export type LineTest = (logger: string, msg: string) => boolean;

/** The logger name is the node's, namespaced with dots when the node is. */
function fromNode(nodeName: string): LineTest {
  const bare = nodeName.replace(/^\/+/, "").split("/").pop() ?? nodeName;
  return (logger) => logger === bare || logger.endsWith(`.${bare}`);
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
  readonly #listeners = new Set<(error: LoggedError) => void>();

  /** `from`: a node's name (its logger's), or a test of the logger name and text for lines from anywhere. */
  constructor(rcl: Rclnodejs, node: RclNode, from: string | LineTest, now: () => number) {
    this.#node = node;
    const accept = typeof from === "string" ? fromNode(from) : from;
    const qos = new rcl.QoS(
      QosPolicy.HISTORY_KEEP_LAST,
      KEEP,
      QosPolicy.RELIABILITY_RELIABLE,
      QosPolicy.DURABILITY_VOLATILE,
    );
    this.#subscription = node.createSubscription(MSG_LOG, "/rosout", { qos }, (msg) => {
      const m = msg as { level?: number; name?: string; msg?: string };
      if (typeof m.level !== "number" || m.level < LOG_ERROR || typeof m.msg !== "string") return;
      const name = m.name ?? "";
      if (!accept(name, m.msg)) return;
      this.#errors.push({ node: name, msg: m.msg, receivedMs: now() });
      if (this.#errors.length > KEEP) this.#errors.shift();
      for (const w of [...this.#waiters]) w();
      for (const l of [...this.#listeners]) l(this.#errors.at(-1)!);
    });
  }

  /** Called with each error as it arrives. Returns an unsubscribe function. */
  onError(listener: (error: LoggedError) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
    this.#listeners.clear();
  }
}
