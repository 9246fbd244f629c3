import type { Logger } from "pino";
import { isArmbridgeError } from "../../errors.js";
import { linkSignals } from "../linkSignals.js";
import type { LinkLoss, LinkState, LinkStateName } from "../Transport.js";
import { ExponentialBackoff, type BackoffOptions } from "./ExponentialBackoff.js";
import { LinkStateTracker } from "./LinkStateTracker.js";

/** What a successful reconnection attempt found. */
export interface LinkReturn {
  /**
   * `same`: the device kept its memory of what was in flight (the same
   * firmware boot, servos still holding torque, the same controllers).
   * `new`: it came back after a power loss or restart — a new incarnation.
   */
  readonly incarnation: "same" | "new";
  /** What the return found, in words for an operator. */
  readonly detail: string;
}

/** What the link went through, for whoever settles what was in flight (the executor) and for benches. */
export type LinkEvent =
  | { readonly type: "lost"; readonly loss: LinkLoss }
  | {
      readonly type: "attempt_failed";
      readonly attempt: number;
      readonly reason: string;
      readonly code: string | undefined;
      readonly nextAttemptAt: number;
    }
  | { readonly type: "returned"; readonly loss: LinkLoss; readonly incarnation: "same" | "new" };

export interface LinkLifecycleOptions {
  /** Names the link in logs and details ("tcp://127.0.0.1:4000", "the ROS graph"). */
  readonly describe: string;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Delays between attempts; each transport picks its own (a ROS check is cheap, a port reopen is not). */
  readonly backoff?: BackoffOptions | undefined;
  /**
   * Whether a lost link is tried again at all. Default true. With false a
   * loss ends at `down` and stays there: the bridge must be restarted. The
   * contract suite's link-loss cases are proven to bite by running them so.
   */
  readonly reconnect?: boolean | undefined;
  /** Longest one attempt may take before it counts as failed. */
  readonly attemptTimeoutMs: number;
  /** Epoch ms of the newest status from the arm. */
  readonly lastStatusAt: () => number | undefined;
  /** The arm's incarnation now (ArmIdentity.incarnation). */
  readonly incarnation?: () => string | undefined;
  /** Action ids of the motions in flight now: recorded with a loss, never re-sent. */
  readonly inFlight: () => readonly string[];
  /**
   * One try to get the arm back: reopen, handshake, check it is the same
   * device, and (for a new incarnation) arm it again without moving. Throws
   * to be tried again after the back-off; an ArmbridgeError's code is shown
   * as the link's `error_code` (ARMB_ERR_DEVICE_REPLACED: another device
   * answered and was not driven).
   */
  readonly attempt: (signal: AbortSignal, attempt: number) => Promise<LinkReturn>;
}

/**
 * The one link lifecycle every transport goes through (serial firmware, the
 * servo buses, ROS 2, and test fakes):
 *
 *   down ──open──► connected ──lost──► reconnecting (attempt n, next try at …) ──► connected
 *                                           └── another device answers: refused (error_code), tried again
 *
 * with a bounded, jittered back-off between attempts, and one meaning: a
 * motion in flight when the link dropped is never re-sent; it is settled by
 * observation once the arm answers again (the executor hears `returned`).
 * The transport supplies only what is its own: how to notice a loss, and
 * one attempt.
 */
export class LinkLifecycle {
  readonly #options: LinkLifecycleOptions;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #backoff: ExponentialBackoff;
  readonly #tracker: LinkStateTracker;
  readonly #events = new Set<(event: LinkEvent) => void>();
  readonly #closing = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #attemptTask: Promise<void> | undefined;
  #loss: LinkLoss | undefined;
  #closed = false;

  constructor(options: LinkLifecycleOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#log = options.logger;
    this.#backoff = new ExponentialBackoff(options.backoff);
    this.#tracker = new LinkStateTracker({
      now: this.#now,
      lastStatusAt: options.lastStatusAt,
      ...(options.incarnation ? { incarnation: options.incarnation } : {}),
      onListenerError: (err) => this.#log.error({ err }, "link state listener threw"),
    });
  }

  get state(): LinkStateName {
    return this.#tracker.name;
  }

  /** Ends with close(): every wait on the link can listen to it. */
  get closedSignal(): AbortSignal {
    return this.#closing.signal;
  }

  get closed(): boolean {
    return this.#closed;
  }

  snapshot(): LinkState {
    return this.#tracker.snapshot();
  }

  subscribe(listener: (state: LinkState) => void): () => void {
    return this.#tracker.subscribe(listener);
  }

  onEvent(listener: (event: LinkEvent) => void): () => void {
    this.#events.add(listener);
    return () => this.#events.delete(listener);
  }

  /** Not connected and nothing trying (before the first open, after it failed). */
  down(detail: string): void {
    if (this.#closed) return;
    this.#tracker.set("down", { detail });
  }

  /** The first open succeeded. */
  opened(): void {
    if (this.#closed) return;
    this.#tracker.set("connected");
  }

  /**
   * The link dropped, or the arm stopped answering on it. From `connected`
   * this starts reconnecting; while already reconnecting it changes nothing.
   */
  lost(reason: string): void {
    if (this.#closed || this.#tracker.name !== "connected") return;
    const loss: LinkLoss = { lost_at: this.#now(), reason, in_flight: [...this.#options.inFlight()], attempts: 0 };
    this.#loss = loss;
    this.#log.warn({ reason, in_flight: loss.in_flight }, "link lost; what was in flight is not re-sent");
    if (this.#options.reconnect === false) {
      this.#tracker.set("down", { detail: `${reason}; reconnecting is disabled: restart the bridge` }, loss);
      this.#emit({ type: "lost", loss });
      return;
    }
    this.#backoff.reset();
    this.#schedule(reason, undefined, loss);
    this.#emit({ type: "lost", loss });
  }

  /**
   * The arm restarted behind a link that stayed up (a new boot id in its
   * status, a servo found with torque off that we had armed): a new
   * incarnation, reported like a return.
   */
  restarted(detail: string, inFlight: readonly string[]): void {
    if (this.#closed) return;
    const at = this.#now();
    const loss: LinkLoss = {
      lost_at: at,
      reason: detail,
      in_flight: [...inFlight],
      returned_at: at,
      attempts: 0,
      incarnation_changed: true,
      returned_detail: detail,
    };
    this.#log.warn(
      { detail, in_flight: loss.in_flight },
      "the arm restarted behind a link that stayed up: new incarnation",
    );
    this.#tracker.setLastLoss(loss);
    this.#emit({ type: "returned", loss, incarnation: "new" });
  }

  /** Stops trying; `down` from now on. Waits for an attempt under way to unwind. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#tracker.set("down", { detail: "the transport is closed" });
    await this.#attemptTask;
    this.#events.clear();
  }

  #schedule(detail: string, errorCode: string | undefined, loss?: LinkLoss): void {
    if (this.#closed) return;
    const delay = this.#backoff.next();
    const attempt = this.#backoff.attempts;
    const nextAttemptAt = this.#now() + delay;
    this.#tracker.set("reconnecting", { attempt, detail, nextAttemptAt, errorCode }, loss);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#attemptTask = this.#try(attempt, detail, errorCode);
    }, delay);
  }

  async #try(attempt: number, detail: string, errorCode: string | undefined): Promise<void> {
    // Under way: no "next attempt at" until this one has failed.
    this.#tracker.set("reconnecting", { attempt, detail, errorCode });
    const timeout = AbortSignal.timeout(this.#options.attemptTimeoutMs);
    // Not AbortSignal.any over the lifetime signal: on Node 20 each composed signal stays referenced from it (linkSignals).
    const linked = linkSignals([this.#closing.signal, timeout]);
    let found: LinkReturn;
    try {
      found = await this.#options.attempt(linked.signal, attempt);
      if (this.#closed) return;
    } catch (error) {
      if (this.#closed) return;
      const code = isArmbridgeError(error) ? error.code : undefined;
      const reason = timeout.aborted
        ? `attempt ${attempt} took longer than ${this.#options.attemptTimeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error);
      this.#log.info({ attempt, reason, code }, "reconnection attempt failed");
      this.#schedule(`${this.#loss?.reason ?? "link lost"}; attempt ${attempt}: ${reason}`, code);
      this.#emit({
        type: "attempt_failed",
        attempt,
        reason,
        code,
        nextAttemptAt: this.snapshot().next_attempt_at ?? this.#now(),
      });
      return;
    } finally {
      linked.dispose();
    }
    const lost = this.#loss;
    const at = this.#now();
    const loss: LinkLoss = {
      lost_at: lost?.lost_at ?? at,
      reason: lost?.reason ?? "link lost",
      in_flight: lost?.in_flight ?? [],
      returned_at: at,
      attempts: attempt,
      incarnation_changed: found.incarnation === "new",
      returned_detail: found.detail,
    };
    this.#loss = undefined;
    this.#log.info(
      { attempts: attempt, down_ms: at - loss.lost_at, incarnation: found.incarnation, detail: found.detail },
      "link back",
    );
    this.#tracker.set("connected", {}, loss);
    this.#emit({ type: "returned", loss, incarnation: found.incarnation });
  }

  #emit(event: LinkEvent): void {
    for (const listener of [...this.#events]) {
      try {
        listener(event);
      } catch (error) {
        this.#log.error({ err: error }, "link event listener threw");
      }
    }
  }
}
