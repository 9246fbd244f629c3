import type { ArmConfig } from "../../config/ArmConfig.js";
import type { ObserveFn } from "../toolContract/ToolDefinition.js";
import type { ActionRecord, ArmStatus, MotionCommand, Transport } from "../../transport/Transport.js";
import { armClock, armTimer, type ArmClock } from "./ArmClock.js";
import { judgeAction } from "./judgeAction.js";
import type { Verdict } from "./Verdict.js";

export interface ObserveOptions {
  readonly transport: Transport;
  readonly observe: ObserveFn;
  readonly command: MotionCommand;
  readonly config: ArmConfig;
  /** A record we already hold (e.g. the one runMotion ended with). */
  readonly initialRecord?: ActionRecord | undefined;
  /**
   * Whether the arm may be asked to void an action it has never heard of.
   * False when the arm may have forgotten it (its incarnation changed since
   * the send): then "never heard of it" proves nothing. Default true.
   */
  readonly mayVoid?: boolean | undefined;
  /** Ends the observation early (shutdown); the result is then `undetermined`. */
  readonly signal?: AbortSignal | undefined;
  readonly now?: () => number;
  /**
   * The arm's time, which the windows are counted in (a motion at 30 % speed
   * gets 3.3× the wall time); one over the command's axes by default. A
   * pause longer than observe.pause_max_ms ends the observation.
   */
  readonly clock?: ArmClock | undefined;
}

export interface ObserveOutcome {
  /** `undetermined` carries the reason observation could not conclude. */
  readonly verdict: Verdict;
  readonly notes: readonly string[];
  readonly record: ActionRecord | undefined;
  readonly status: ArmStatus | undefined;
  /** How long we observed, in ms. */
  readonly waitedMs: number;
  /** Set when the observation ended because the arm stayed paused (speed scaling 0) longer than observe.pause_max_ms. */
  readonly pausedForMs?: number;
}

/**
 * After a timeout: look at the arm until the action's outcome is evident.
 *
 * Event-driven, not a sleep loop: every status the arm streams (100 Hz on the
 * serial path, /joint_states on ROS) is judged as it arrives, so a motion that
 * ends is settled within one status period of its real end. QUERY_ACTION is
 * asked at once and then every `queryIntervalMs` in case the stream is quiet.
 *
 * Patience follows the evidence: with no sign of the action we give up after
 * `budgetMs`; while the arm shows it running we keep watching up to `maxMs`,
 * because a motion in progress is not ambiguous — it will end, and declaring
 * it `unknown` would only hand the operator a question the arm answers itself.
 * Both are counted in the arm's time (ArmClock): a speed slider at 30 %
 * stretches them, a pause stops them — for at most observe.pause_max_ms.
 * A link that is not connected is no evidence either way: while it is down
 * the watch lasts up to `maxMs` too, and the arm is asked again the moment it
 * is back. (A link down for longer leaves the action `unknown`; the executor
 * looks at it again when the link returns.)
 *
 * Every query asks the arm to void the action if it has never heard of it,
 * until the arm has accounted for the id: a command lost on the wire then
 * becomes positive evidence of no effect (the arm refuses it if it ever
 * arrives) instead of an operator's problem. Until then no verdict is given,
 * not even "the target pose holds" (see judgeAction): a verdict releases the
 * joints, and the arm could still start a command it has not accounted for.
 */
export function observeUntilSettled(options: ObserveOptions): Promise<ObserveOutcome> {
  return new Promise<ObserveOutcome>((resolve) => new Observation(options, resolve).start());
}

const SHUTTING_DOWN = "observation ended early: the bridge is shutting down";

/** One observation of one action, from its first look to its one outcome. */
class Observation {
  readonly #options: ObserveOptions;
  readonly #resolve: (outcome: ObserveOutcome) => void;
  readonly #now: () => number;
  readonly #mayVoid: boolean;
  readonly #startedAt: number;
  readonly #ownClock: boolean;
  readonly #clock: ArmClock;
  readonly #softEnd: number;
  readonly #hardEnd: number;
  // Ends this observation's queries when it finishes or the caller's signal fires. Not
  // AbortSignal.any over the caller's (long-lived) signal: on Node 20 that keeps every
  // composed signal referenced from it.
  readonly #controller = new AbortController();
  #record: ActionRecord | undefined;
  #lastNotes: readonly string[] = [];
  #deadline: number;
  #settled = false;
  #queryTimer: NodeJS.Timeout | undefined;
  // Set once the listeners exist (start); finish() may run before that only through an abort.
  #deadlineTimer: { rearm(): void; cancel(): void } | undefined;
  #queryInFlight = false;
  #pausedForMs: number | undefined;
  #unsubscribe: () => void = () => undefined;
  #unsubscribeLink: () => void = () => undefined;

  constructor(options: ObserveOptions, resolve: (outcome: ObserveOutcome) => void) {
    const { transport, command, config } = options;
    this.#options = options;
    this.#resolve = resolve;
    this.#now = options.now ?? Date.now;
    this.#mayVoid = options.mayVoid ?? true;
    this.#startedAt = this.#now();
    this.#ownClock = options.clock === undefined;
    this.#clock = options.clock ?? armClock(transport, Object.keys(command.targets), this.#now);
    const armStart = this.#clock.elapsed();
    this.#softEnd = armStart + config.observe.budgetMs;
    this.#hardEnd = armStart + config.observe.maxMs;
    this.#record = options.initialRecord;
    this.#deadline = this.#softEnd;
  }

  start(): void {
    const { transport, config, signal } = this.#options;
    if (signal?.aborted) {
      if (this.#ownClock) this.#clock.dispose();
      this.#resolve({
        verdict: { kind: "undetermined", why: SHUTTING_DOWN },
        notes: [SHUTTING_DOWN],
        record: this.#record,
        status: transport.latestStatus(),
        waitedMs: 0,
      });
      return;
    }
    signal?.addEventListener("abort", this.#onExternalAbort, { once: true });
    this.#unsubscribe = transport.onStatus((status) => {
      this.#takeRecordFrom(status);
      this.#judge();
    });
    this.#unsubscribeLink = transport.onLinkState((link) => {
      if (this.#settled) return;
      if (link.state !== "connected") return this.#linkDown();
      // Back: the patience the outage bought ends; evidence now gets the usual budget from here
      // (a motion the arm shows running extends it again). And ask at once, not at the next tick.
      this.#deadline = Math.min(
        this.#hardEnd,
        Math.max(this.#softEnd, this.#clock.elapsed() + config.observe.budgetMs),
      );
      this.#deadlineTimer?.rearm();
      clearTimeout(this.#queryTimer);
      void this.#query();
    });
    if (transport.linkState().state !== "connected") this.#linkDown();
    const latest = transport.latestStatus();
    if (latest) this.#takeRecordFrom(latest);
    this.#deadlineTimer = armTimer(
      this.#clock,
      () => this.#deadline,
      config.observe.pauseMaxMs,
      (end) => void this.#onDeadline(end),
    );
    this.#judge();
    void this.#query();
  }

  #finish(verdict: Verdict, notes: readonly string[]): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#unsubscribe();
    this.#unsubscribeLink();
    clearTimeout(this.#queryTimer);
    this.#deadlineTimer?.cancel();
    if (this.#ownClock) this.#clock.dispose();
    this.#options.signal?.removeEventListener("abort", this.#onExternalAbort);
    this.#controller.abort();
    const pausedForMs = this.#pausedForMs;
    this.#resolve({
      verdict,
      notes,
      record: this.#record,
      status: this.#options.transport.latestStatus(),
      waitedMs: this.#now() - this.#startedAt,
      ...(pausedForMs === undefined ? {} : { pausedForMs }),
    });
  }

  #judge(): void {
    if (this.#settled) return;
    const { observe, command, config, transport } = this.#options;
    const j = judgeAction(
      observe,
      { command, config, status: transport.latestStatus(), record: this.#record, nowMs: this.#now() },
      { armRestarted: !this.#mayVoid },
    );
    this.#lastNotes = j.notes;
    switch (j.kind) {
      case "settled":
        this.#finish(j.verdict, j.notes);
        return;
      case "running": {
        const extended = Math.min(this.#hardEnd, this.#clock.elapsed() + config.observe.budgetMs);
        if (extended > this.#deadline) {
          this.#deadline = extended;
          this.#deadlineTimer?.rearm();
        }
        return;
      }
      case "waiting":
        return;
    }
  }

  /** The arm has not (yet) said it knows this id: only then is there anything to void. */
  #unaccounted(): boolean {
    return this.#record === undefined || this.#record.state === "unknown";
  }

  #takeRecordFrom(status: ArmStatus): void {
    const r = status.actions.find((a) => a.actionId === this.#options.command.actionId);
    if (r) this.#record = r;
  }

  /** Asks the arm about the action, voiding it while the arm has not accounted for it. */
  #ask(minTimeoutMs: number): Promise<ActionRecord | undefined> {
    const { transport, command, config } = this.#options;
    return transport.queryAction(command.actionId, {
      voidIfUnknown: this.#mayVoid && this.#unaccounted(),
      signal: AbortSignal.any([
        this.#controller.signal,
        AbortSignal.timeout(Math.max(minTimeoutMs, config.observe.queryIntervalMs * 2)),
      ]),
    });
  }

  async #query(): Promise<void> {
    if (this.#settled || this.#queryInFlight) return;
    this.#queryInFlight = true;
    try {
      const answer = await this.#ask(50);
      if (answer) this.#record = answer;
    } catch {
      // The contract says queryAction never rejects; if one does, it is simply no answer.
    } finally {
      this.#queryInFlight = false;
    }
    this.#judge();
    if (!this.#settled)
      this.#queryTimer = setTimeout(() => void this.#query(), this.#options.config.observe.queryIntervalMs);
  }

  async #onDeadline(end: "elapsed" | "paused"): Promise<void> {
    if (this.#settled) return;
    if (end === "paused") this.#pausedForMs = this.#clock.pausedForMs();
    // Last word: ask once more, voiding the action if the arm never heard of it.
    const answer = await this.#ask(100).catch(() => undefined);
    if (answer) this.#record = answer;
    this.#judge();
    const pausedForMs = this.#pausedForMs;
    const paused =
      pausedForMs === undefined
        ? []
        : [
            `the arm has been paused for ${Math.round(pausedForMs / 1000)} s (${this.#clock.pace()?.source ?? "speed scaling 0"})`,
          ];
    const notes = [
      ...this.#lastNotes,
      ...paused,
      `no conclusive evidence within ${this.#now() - this.#startedAt} ms of observation`,
    ];
    this.#finish({ kind: "undetermined", why: notes.join("; ") }, notes);
  }

  readonly #onExternalAbort = (): void =>
    this.#finish({ kind: "undetermined", why: SHUTTING_DOWN }, [...this.#lastNotes, SHUTTING_DOWN]);

  #linkDown(): void {
    if (this.#hardEnd > this.#deadline) {
      this.#deadline = this.#hardEnd;
      this.#deadlineTimer?.rearm();
    }
  }
}
