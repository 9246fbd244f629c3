import type { ArmConfig } from "../config/ArmConfig.js";
import type { ObserveFn } from "./ToolDefinition.js";
import type { ActionRecord, ArmStatus, MotionCommand, Transport } from "../transport/Transport.js";
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
  const { transport, observe, command, config } = options;
  const now = options.now ?? Date.now;
  const mayVoid = options.mayVoid ?? true;
  const startedAt = now();
  const ownClock = options.clock === undefined;
  const clock = options.clock ?? armClock(transport, Object.keys(command.targets), now);
  const armStart = clock.elapsed();
  const softEnd = armStart + config.observe.budgetMs;
  const hardEnd = armStart + config.observe.maxMs;
  // Ends this observation's queries when it finishes or the caller's signal fires. Not
  // AbortSignal.any over the caller's (long-lived) signal: on Node 20 that keeps every
  // composed signal referenced from it.
  const controller = new AbortController();
  const signal = controller.signal;

  return new Promise<ObserveOutcome>((resolve) => {
    let record = options.initialRecord;
    let lastNotes: readonly string[] = [];
    let deadline = softEnd;
    let settled = false;
    let queryTimer: NodeJS.Timeout | undefined;
    // Set once the listeners exist (below); finish() may run before that only through an abort.
    const deadlineTimer: { current?: { rearm(): void; cancel(): void } } = {};
    let queryInFlight = false;
    let pausedForMs: number | undefined;

    const finish = (verdict: Verdict, notes: readonly string[]): void => {
      if (settled) return;
      settled = true;
      unsubscribe();
      unsubscribeLink();
      clearTimeout(queryTimer);
      deadlineTimer.current?.cancel();
      if (ownClock) clock.dispose();
      options.signal?.removeEventListener("abort", onExternalAbort);
      controller.abort();
      resolve({
        verdict,
        notes,
        record,
        status: transport.latestStatus(),
        waitedMs: now() - startedAt,
        ...(pausedForMs === undefined ? {} : { pausedForMs }),
      });
    };

    const judge = (): void => {
      if (settled) return;
      const j = judgeAction(
        observe,
        { command, config, status: transport.latestStatus(), record, nowMs: now() },
        { armRestarted: !mayVoid },
      );
      lastNotes = j.notes;
      switch (j.kind) {
        case "settled":
          finish(j.verdict, j.notes);
          return;
        case "running": {
          const extended = Math.min(hardEnd, clock.elapsed() + config.observe.budgetMs);
          if (extended > deadline) {
            deadline = extended;
            deadlineTimer.current?.rearm();
          }
          return;
        }
        case "waiting":
          return;
      }
    };

    /** The arm has not (yet) said it knows this id: only then is there anything to void. */
    const unaccounted = (): boolean => record === undefined || record.state === "unknown";

    const takeRecordFrom = (status: ArmStatus): void => {
      const r = status.actions.find((a) => a.actionId === command.actionId);
      if (r) record = r;
    };

    const query = async (): Promise<void> => {
      if (settled || queryInFlight) return;
      queryInFlight = true;
      try {
        const answer = await transport.queryAction(command.actionId, {
          voidIfUnknown: mayVoid && unaccounted(),
          signal: AbortSignal.any([signal, AbortSignal.timeout(Math.max(50, config.observe.queryIntervalMs * 2))]),
        });
        if (answer) record = answer;
      } catch {
        // The contract says queryAction never rejects; if one does, it is simply no answer.
      } finally {
        queryInFlight = false;
      }
      judge();
      if (!settled) queryTimer = setTimeout(() => void query(), config.observe.queryIntervalMs);
    };

    const onDeadline = async (end: "elapsed" | "paused"): Promise<void> => {
      if (settled) return;
      if (end === "paused") pausedForMs = clock.pausedForMs();
      // Last word: ask once more, voiding the action if the arm never heard of it.
      const answer = await transport
        .queryAction(command.actionId, {
          voidIfUnknown: mayVoid && unaccounted(),
          signal: AbortSignal.any([signal, AbortSignal.timeout(Math.max(100, config.observe.queryIntervalMs * 2))]),
        })
        .catch(() => undefined);
      if (answer) record = answer;
      judge();
      const paused =
        pausedForMs === undefined
          ? []
          : [
              `the arm has been paused for ${Math.round(pausedForMs / 1000)} s (${clock.pace()?.source ?? "speed scaling 0"})`,
            ];
      const notes = [...lastNotes, ...paused, `no conclusive evidence within ${now() - startedAt} ms of observation`];
      finish({ kind: "undetermined", why: notes.join("; ") }, notes);
    };

    const shuttingDown = "observation ended early: the bridge is shutting down";
    const onExternalAbort = (): void =>
      finish({ kind: "undetermined", why: shuttingDown }, [...lastNotes, shuttingDown]);
    if (options.signal?.aborted) {
      if (ownClock) clock.dispose();
      resolve({
        verdict: { kind: "undetermined", why: shuttingDown },
        notes: [shuttingDown],
        record,
        status: transport.latestStatus(),
        waitedMs: 0,
      });
      return;
    }
    options.signal?.addEventListener("abort", onExternalAbort, { once: true });

    const unsubscribe = transport.onStatus((status) => {
      takeRecordFrom(status);
      judge();
    });
    const linkDown = (): void => {
      if (hardEnd > deadline) {
        deadline = hardEnd;
        deadlineTimer.current?.rearm();
      }
    };
    const unsubscribeLink = transport.onLinkState((link) => {
      if (settled) return;
      if (link.state !== "connected") return linkDown();
      // Back: the patience the outage bought ends; evidence now gets the usual budget from here
      // (a motion the arm shows running extends it again). And ask at once, not at the next tick.
      deadline = Math.min(hardEnd, Math.max(softEnd, clock.elapsed() + config.observe.budgetMs));
      deadlineTimer.current?.rearm();
      clearTimeout(queryTimer);
      void query();
    });
    if (transport.linkState().state !== "connected") linkDown();

    const latest = transport.latestStatus();
    if (latest) takeRecordFrom(latest);
    deadlineTimer.current = armTimer(
      clock,
      () => deadline,
      config.observe.pauseMaxMs,
      (end) => void onDeadline(end),
    );
    judge();
    void query();
  });
}
