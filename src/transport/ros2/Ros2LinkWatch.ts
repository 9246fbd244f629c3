import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";
import { deviceText } from "../../validation/deviceText.js";
import type { BackoffOptions } from "../link/ExponentialBackoff.js";
import { LinkLifecycle, type LinkReturn } from "../link/LinkLifecycle.js";
import type { ActionTracker } from "./ActionTracker.js";
import type { JointStateObserver } from "./JointStateObserver.js";
import type { MotionWaiter } from "./MotionWaiter.js";
import type { RosFacts } from "./RosFacts.js";
import type { Ros2Setup } from "./resolveRos2Setup.js";
import type { ServerRegistry } from "./ServerRegistry.js";

/** How often the ROS link is judged (servers available, /joint_states fresh): a console hears of a change within this. */
const LINK_POLL_MS = 200;

export interface Ros2LinkWatchDeps {
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly servers: ServerRegistry;
  readonly observer: JointStateObserver;
  readonly tracker: ActionTracker;
  readonly waiter: MotionWaiter;
  readonly log: Logger;
  readonly now: () => number;
  readonly backoff?: BackoffOptions | undefined;
  readonly reconnect?: boolean | undefined;
  /** What start-up read of the graph; undefined before open. */
  readonly facts: () => RosFacts | undefined;
}

/**
 * The ROS graph as a link: judged on a clock (neither a vanished action server
 * nor silent /joint_states produces a callback), lost when a server or the
 * JointState topics go, back when both return — with a new incarnation when a
 * server went away meanwhile, since a restarted controller forgets its goals.
 */
export class Ros2LinkWatch {
  readonly lifecycle: LinkLifecycle;
  readonly #deps: Ros2LinkWatchDeps;
  /** The joint names the JointState topics carried when the transport opened: which robot this is. */
  #identity: readonly string[] = [];
  /** Action servers that went away since the link was lost: a controller that restarted has forgotten its goals. */
  readonly #gone = new Set<string>();
  #lostAt = 0;
  /** Returns after which a server had gone away: each is a new incarnation of the controllers. */
  #restarts = 0;
  readonly #session = randomBytes(4).toString("hex");
  #poll: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(deps: Ros2LinkWatchDeps) {
    this.#deps = deps;
    this.lifecycle = new LinkLifecycle({
      describe: "the ROS graph",
      logger: deps.log,
      now: deps.now,
      // DDS discovery brings servers back by itself; a check costs nothing, so look often.
      backoff: deps.backoff ?? { initialMs: 100, maxMs: 500 },
      reconnect: deps.reconnect,
      attemptTimeoutMs: 2000,
      lastStatusAt: () => deps.observer.latest()?.stampMs,
      incarnation: () => `ros2:${this.#session}:${this.#restarts}`,
      inFlight: () => deps.tracker.activeIds(),
      attempt: async () => this.#tryReturn(),
    });
  }

  /** Once the first status has come: remembers which robot this is, and starts judging the link. */
  start(): void {
    const { observer, servers, log } = this.#deps;
    this.#identity = observer.namesSince(0);
    for (const [name, client] of servers.clients()) {
      if (!client.isActionServerAvailable())
        log.warn({ server: name }, "action server not available yet; the link is reconnecting until it is");
    }
    this.lifecycle.opened();
    this.#watch();
    this.#poll ??= setInterval(() => this.#watch(), LINK_POLL_MS);
    this.#poll.unref();
  }

  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poll);
    this.#poll = undefined;
    return this.lifecycle.close();
  }

  /** The JointState topics the arm is read from, as start-up found them. */
  jointStatesTopics(): string {
    return this.#deps.facts()?.jointStates.topics.join(" / ") ?? this.#deps.setup.options.jointStatesTopic;
  }

  /** What keeps the link from being `connected` now: servers not available, JointState topics stale. */
  #problems(): string[] {
    const { servers, observer, config } = this.#deps;
    const missing = [...servers.clients()].filter(([, c]) => !c.isActionServerAvailable()).map(([name]) => name);
    const latest = observer.latest();
    const age = latest ? this.#deps.now() - latest.stampMs : Infinity;
    const topic = this.jointStatesTopics();
    // Stable words (no running age): listeners hear of a change only.
    return [
      ...(missing.length > 0 ? [`action server(s) not available: ${missing.join(", ")}`] : []),
      ...(age > config.staleAfterMs
        ? [latest ? `no ${topic} for more than ${config.staleAfterMs} ms` : `no ${topic} yet`]
        : []),
    ];
  }

  /**
   * Judged every LINK_POLL_MS: connected while every action server we drive
   * is available and the JointState topics are fresher than stale_after_ms.
   * A server seen gone is remembered until the link is back: it may have been
   * restarted, forgetting our goals.
   */
  #watch(): void {
    if (this.#closed) return;
    for (const [name, client] of this.#deps.servers.clients())
      if (!client.isActionServerAvailable()) this.#gone.add(name);
    if (this.lifecycle.state !== "connected") return;
    const problems = this.#problems();
    if (problems.length === 0) return;
    this.#lostAt = this.#deps.now();
    this.lifecycle.lost(problems.join("; "));
  }

  /**
   * One check of a lost graph (LinkLifecycle): the link is back once every
   * server is available and the JointState topics are fresh again, naming no
   * joint they did not name at open (another robot answering is refused,
   * never driven). A server that went away meanwhile makes a new incarnation:
   * a restarted controller has forgotten our goals and will never send their
   * results, so those goals are settled from the JointState topics
   * (MotionWaiter.settleForgotten), never re-sent.
   */
  async #tryReturn(): Promise<LinkReturn> {
    const topic = this.jointStatesTopics();
    const strangers = this.#deps.observer.namesSince(this.#lostAt).filter((n) => !this.#identity.includes(n));
    if (strangers.length > 0) {
      throw new ArmbridgeError("ARMB_ERR_DEVICE_REPLACED", {
        link: "the ROS graph",
        // The names are whatever the other publisher chose: device text.
        detail: `${topic} names ${deviceText(`the publishers of ${topic}`, strangers.join(", "))}, joints it did not name when the bridge started (${this.#identity.join(", ")})`,
      });
    }
    const problems = this.#problems();
    if (problems.length > 0) throw new Error(problems.join("; "));
    const gone = [...this.#gone];
    this.#gone.clear();
    if (gone.length === 0)
      return { incarnation: "same", detail: `every action server stayed available; ${topic} is fresh again` };
    this.#restarts++;
    // Named as clients() names them: a controller's name, or "gripper".
    // Only goals the controller had accepted: a request still without an answer may yet be delivered
    // late, so it is left to the executor's observation (unknown if nothing accounts for it).
    const forgotten = this.#deps.tracker
      .unfinishedRuns()
      .filter(
        ({ run }) =>
          run.phase === "accepted" && gone.includes(run.server.kind === "gripper" ? "gripper" : run.server.controller),
      );
    for (const { track, run } of forgotten)
      void this.#deps.waiter.settleForgotten(track, run, this.#deps.log.child({ action_id: track.actionId }));
    return {
      incarnation: "new",
      detail: `action server(s) ${gone.join(", ")} went away and came back: a restarted controller forgets its goals; ${forgotten.length} goal(s) in flight on them settled from ${topic}, never re-sent`,
    };
  }
}
