import { ArmbridgeError } from "../../errors.js";
import type { Logger } from "../../observability/logger.js";
import { normaliseOperatorName } from "../../ledger/operatorName.js";

/** One open console as its heartbeats tell it. */
export interface PresenceConsole {
  /** Chosen by the console for its page's life; never shown to a model. */
  readonly sessionId: string;
  /** The name the operator typed; undefined while they have not. */
  readonly operator: string | undefined;
  readonly firstBeatAt: number;
  readonly lastBeatAt: number;
}

/** What `operator_presence` stands at now: who holds it, or what is missing. */
export interface PresenceSnapshot {
  readonly timeoutMs: number;
  /** The named operator whose console heartbeats, newest first; undefined when none does. */
  readonly operator: string | undefined;
  /** Why motion is not admitted, in words a model and an operator can act on; undefined when it is. */
  readonly missing: string | undefined;
  readonly consoles: readonly PresenceConsole[];
}

/** The moment presence was lost, and what was under way then. */
export interface PresenceLapse {
  readonly reason: string;
  /** The operator who held presence until now. */
  readonly operator: string | undefined;
  /** Action ids of motions this process had sent (or was about to send) when it was lost. */
  readonly motions: readonly string[];
}

export interface OperatorPresenceOptions {
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly log: Logger;
  /** Presence was held and is now lost. Called once per loss, whether or not a motion is under way. */
  readonly onLapse: (lapse: PresenceLapse) => void;
  /** Presence changed (gained, lost, another operator): for the console's state. */
  readonly onChange?: (() => void) | undefined;
  /** Consoles counted at once (default MAX_PRESENCE_CONSOLES). */
  readonly maxConsoles?: number | undefined;
}

/**
 * Consoles counted at once. Every console is listed in /v1/state and in each
 * SSE state event, so the list is bounded: a few people at an arm, each with
 * a phone and a laptop, fit well within it.
 */
export const MAX_PRESENCE_CONSOLES = 16;

/**
 * Hold-to-run (config `operator_presence: {required: true, timeout_ms}`):
 * motion is admitted only while at least one operator console with a named
 * operator heartbeats, each beat younger than `timeout_ms`. A console that
 * stops beating — closed, asleep, its network gone — counts as absent once
 * `timeout_ms` has passed; an explicit leave counts at once. The watchdog
 * runs only while someone is present or a motion is under way, so an idle
 * bridge keeps no timer.
 *
 * The gate is checked where the halt latch is: before the queue, after an
 * approval, and in the same tick as the motion is counted under way
 * (`motionBegins`). From that tick on, a lapse reaches `onLapse` with the
 * motion listed, and the executor halts the arm.
 */
export class OperatorPresence {
  readonly timeoutMs: number;
  readonly #options: OperatorPresenceOptions;
  readonly #consoles = new Map<string, PresenceConsole>();
  readonly #underway = new Set<string>();
  #holder: string | undefined;
  /** The newest console that held presence: who a loss is about. */
  #lastHolder: PresenceConsole | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: OperatorPresenceOptions) {
    this.timeoutMs = options.timeoutMs;
    this.#options = options;
  }

  /**
   * A console's heartbeat (the page's session id, the name typed, if any). A
   * console not yet counted is refused with ARMB_ERR_PRESENCE_CONSOLES_FULL
   * while the cap is reached; those counted keep beating.
   */
  beat(sessionId: string, operator: string | undefined): PresenceSnapshot {
    const now = this.#options.now();
    this.#prune();
    const before = this.#consoles.get(sessionId);
    const limit = this.#options.maxConsoles ?? MAX_PRESENCE_CONSOLES;
    if (!before && this.#consoles.size >= limit)
      throw new ArmbridgeError("ARMB_ERR_PRESENCE_CONSOLES_FULL", { limit, timeoutMs: this.timeoutMs });
    this.#consoles.set(sessionId, {
      sessionId,
      operator: operator === undefined ? undefined : normaliseOperatorName(operator),
      firstBeatAt: before?.firstBeatAt ?? now,
      lastBeatAt: now,
    });
    this.#evaluate();
    return this.snapshot();
  }

  /** A console closing says so: its presence ends now, not after `timeout_ms`. */
  leave(sessionId: string): PresenceSnapshot {
    this.#consoles.delete(sessionId);
    this.#evaluate();
    return this.snapshot();
  }

  /** Why motion is not admitted now; undefined when a named operator is present. */
  missing(): string | undefined {
    this.#evaluate();
    return this.#missing();
  }

  snapshot(): PresenceSnapshot {
    this.#prune();
    return {
      timeoutMs: this.timeoutMs,
      operator: this.#present()[0]?.operator,
      missing: this.#missing(),
      consoles: [...this.#consoles.values()],
    };
  }

  /** A motion is about to leave: from now until `motionEnds`, losing presence halts the arm. */
  motionBegins(actionId: string): void {
    this.#underway.add(actionId);
    this.#arm();
  }

  motionEnds(actionId: string): void {
    this.#underway.delete(actionId);
    this.#arm();
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
  }

  /** Consoles with a name and a beat younger than the timeout, newest beat first. */
  #present(): PresenceConsole[] {
    return [...this.#consoles.values()]
      .filter((c) => c.operator !== undefined)
      .sort((a, b) => b.lastBeatAt - a.lastBeatAt);
  }

  #prune(): void {
    const now = this.#options.now();
    for (const [id, c] of this.#consoles) if (now - c.lastBeatAt > this.timeoutMs) this.#consoles.delete(id);
  }

  #missing(): string | undefined {
    if (this.#present().length > 0) return undefined;
    if (this.#consoles.size > 0) return "an operator console is open but no operator has typed their name in it";
    const last = this.#lastHolder;
    return last
      ? `the operator console of ${last.operator ?? "the operator"} stopped heartbeating (nothing for more than ${this.timeoutMs} ms)`
      : "no operator console is open (none has heartbeated within timeout_ms)";
  }

  /** Prunes, and tells a change of holder; a loss goes to onLapse with the motions under way. */
  #evaluate(): void {
    this.#prune();
    const present = this.#present();
    const holder = present[0]?.operator;
    if (present[0]) this.#lastHolder = present[0];
    const wasHeld = this.#holder !== undefined;
    const changed = holder !== this.#holder;
    this.#holder = holder;
    if (wasHeld && holder === undefined) {
      const lapse: PresenceLapse = {
        reason: this.#missing() ?? "presence was lost",
        operator: this.#lastHolder?.operator,
        motions: [...this.#underway],
      };
      this.#options.log.warn(
        { operator: lapse.operator, motions: lapse.motions, reason: lapse.reason },
        "operator presence lost",
      );
      this.#options.onLapse(lapse);
    } else if (!wasHeld && holder !== undefined) {
      this.#options.log.info({ operator: holder }, "operator present");
    }
    if (changed) this.#options.onChange?.();
    this.#arm();
  }

  /** The watchdog runs while presence is held or a motion is under way; otherwise nothing can lapse. */
  #arm(): void {
    const needed = !this.#closed && (this.#holder !== undefined || this.#underway.size > 0);
    if (needed && this.#watchdog === undefined) {
      this.#watchdog = setInterval(() => this.#evaluate(), Math.max(25, Math.min(250, Math.floor(this.timeoutMs / 4))));
      this.#watchdog.unref();
    } else if (!needed && this.#watchdog !== undefined) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
    }
  }
}
