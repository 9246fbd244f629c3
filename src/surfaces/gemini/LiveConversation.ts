import type { Content, LiveServerMessage } from "@google/genai";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { AgentMetricsRecorder } from "./AgentMetrics.js";
import type { AgentReporter } from "./AgentReporter.js";
import { AwaitedCalls, type AwaitedCall } from "./AwaitedCalls.js";
import { dispatchLiveCalls } from "./dispatchLiveCalls.js";
import { freshSessionRecap } from "./freshSessionRecap.js";
import { identifyCalls, type CallExecutor, type GeminiToolAdapter } from "./GeminiToolAdapter.js";
import type { LiveRun } from "./LiveRun.js";
import type { LiveSentRecord } from "./LiveSentRecord.js";
import { liveToolResponse } from "./liveToolResponse.js";
import type { SessionStart } from "./ModelLinkEvent.js";
import type { ResumableLiveSession, SessionLoss } from "./ResumableLiveSession.js";
import type { RunMotionLog } from "./RunMotionLog.js";
import { missedOutcomesNote, type UndeliveredMotions } from "./UndeliveredMotions.js";
import { UNREPEATED_USER_TURN_NOTE } from "./unrepeatedUserTurnNote.js";

export interface LiveConversationOptions {
  readonly run: LiveRun;
  readonly link: Pick<ResumableLiveSession<LiveSentRecord>, "connected" | "sendClientContent" | "sendToolResponse">;
  readonly adapter: GeminiToolAdapter;
  readonly executor: CallExecutor;
  readonly undelivered: UndeliveredMotions;
  readonly motions: RunMotionLog;
  readonly reporter: AgentReporter;
  readonly metrics: AgentMetricsRecorder;
  /** The user's instruction (text and images): the first user turn of every fresh session. */
  readonly instruction: Content;
  readonly maxTurns: number;
  readonly deadlineAt: number;
  readonly signal: AbortSignal;
}

/**
 * The turns of a Live run (turn handling and the undelivered motions): each
 * `toolCall` is dispatched (`dispatchLiveCalls`) and answered with
 * `sendToolResponse` once all its calls settle; a call whose result cannot
 * reach the model — `toolCallCancellation`, an interrupting turn, a lost
 * connection — becomes an undelivered motion: its motion goes on, is never
 * re-issued, a repeat of it joins it, and the model is told its outcome.
 *
 * The run has its answer when the model completes a turn with no call
 * awaiting its response and nothing left to tell.
 */
export class LiveConversation {
  readonly #options: LiveConversationOptions;
  readonly #awaiting = new AwaitedCalls();
  /** Later user turns so far, for a fresh session's opening. */
  readonly #userTurns: Content[] = [];
  /** User turns typed while disconnected, to send once connected. */
  #toSend: Content[] = [];
  /** User content went with a lost connection before a resumable handle was known to hold it: the resumed session is told, never sent it again. */
  #userContentUnheld = false;
  readonly sent: FunctionResponse[] = [];
  turns = 0;
  text = "";
  #textOfTurn = "";
  /** The model has completed its turn and we have sent nothing since: a note now interrupts nothing. */
  #idle = false;
  #flushing = false;
  /** The model said something since the last connection was lost. */
  #heardSinceLoss = false;

  constructor(options: LiveConversationOptions) {
    this.#options = options;
  }

  /** A call awaits its response: a goAway waits for it before leaving. */
  busy(): boolean {
    return this.#awaiting.size > 0;
  }

  /** Stop waiting for anything still under way; the executor observes and settles it. */
  abandon(): void {
    this.#awaiting.endAllWaits();
  }

  onMessage(message: LiveServerMessage): void {
    const { reporter } = this.#options;
    if (message.toolCall || message.serverContent) this.#heardSinceLoss = true;
    if (message.setupComplete) reporter.write("setup_complete", { setupComplete: message.setupComplete });
    if (message.toolCall) this.#onToolCall(message.toolCall.functionCalls ?? []);
    if (message.toolCallCancellation) {
      reporter.write("tool_call_cancellation", { ids: message.toolCallCancellation.ids ?? [] });
      const ids = this.#missCalls(message.toolCallCancellation.ids ?? [], "cancelled");
      if (ids.length > 0) reporter.report({ type: "cancelled", callIds: ids });
    }
    const content = message.serverContent;
    if (!content) return;
    if (content.interrupted === true) this.interruptAwaiting();
    for (const p of content.modelTurn?.parts ?? [])
      if (typeof p.text === "string" && p.thought !== true) this.#textOfTurn += p.text;
    if (!content.turnComplete) return;
    reporter.write("model_turn", {
      turn: this.turns + 1,
      content: { role: "model", parts: [{ text: this.#textOfTurn }] },
    });
    if (this.#textOfTurn) this.text = this.#textOfTurn;
    this.#textOfTurn = "";
    // A turn the model completes while calls still await their responses is not its answer: it goes on once they arrive.
    if (this.#awaiting.size > 0) return;
    this.turns++;
    this.#idle = true;
    reporter.report({ type: "model_turn", turn: this.turns, calls: [], text: this.text });
    if (this.#options.undelivered.untold().length > 0) this.#tellMissed();
    else this.#options.run.finish({ kind: "ended", ended: "answered" });
  }

  /** A later user turn: sent now (interrupting calls that await results), or once a connection is up. */
  userTurn(text: string): void {
    this.interruptAwaiting();
    this.#idle = false;
    const content: Content = { role: "user", parts: [{ text }] };
    this.#userTurns.push(content);
    if (!this.#sendUser(content)) this.#toSend.push(content);
    this.#options.reporter.write("user_turn", { text });
    this.#options.reporter.report({ type: "user_turn", text });
  }

  interruptAwaiting(): void {
    const ids = this.#missCalls(this.#awaiting.ids(), "interrupted");
    if (ids.length === 0) return;
    this.#options.reporter.write("interrupted", { call_ids: ids });
    this.#options.reporter.report({ type: "interrupted", callIds: ids });
  }

  /**
   * A connection ended. Calls awaiting responses cannot be answered on the
   * next one (the resumed session predates them: the Live API is not
   * resumable while function calls run): they become undelivered, their
   * motions going on as dispatched. So do motion outcomes sent since the
   * newest resumable handle that the model had not yet read; one it had read
   * (it said something after) was delivered, and is neither announced as
   * lost nor joined again. User content sent since then is never sent again
   * to a resumed session (it may hold it): the session is told instead.
   */
  onLost(loss: SessionLoss<LiveSentRecord>): void {
    const { undelivered } = this.#options;
    this.#textOfTurn = "";
    this.#idle = false;
    this.#heardSinceLoss = false;
    const lost: string[] = [];
    for (const a of this.#awaiting.miss(this.#awaiting.ids(), "connection_lost", "keep_waiting")) {
      undelivered.miss(a.joined?.call ?? a.call, a.joined?.response ?? a.response, "connection_lost");
      lost.push(a.call.id);
    }
    for (const { record: r, answered } of loss.unconfirmed) {
      if (r.kind === "user_content") this.#userContentUnheld = true;
      else if (!answered)
        for (const m of r.motions) {
          undelivered.miss(m.call, m.response, "connection_lost");
          lost.push(m.call.id);
        }
    }
    const event = {
      kind: "connection_lost",
      cause: loss.cause,
      detail: loss.detail,
      undeliveredCallIds: [...new Set(lost)],
      handle: loss.handle,
    } as const;
    this.#options.reporter.write("connection_lost", { ...event });
    this.#options.reporter.report({ type: "link", event });
  }

  /** A connection is up: the first one, a resumed session, or a fresh one told the run so far. */
  onOpened(start: "first" | SessionStart): void {
    switch (start) {
      case "first":
        this.#sendUser(this.#options.instruction);
        // Turns typed while the first connection was being made follow the instruction.
        this.#sendHeld();
        return;
      case "resumed": {
        const noted =
          this.#userContentUnheld && this.#sendUser({ role: "user", parts: [{ text: UNREPEATED_USER_TURN_NOTE }] });
        if (noted) {
          this.#userContentUnheld = false;
          this.#options.reporter.write("user_turn_not_repeated", { text: UNREPEATED_USER_TURN_NOTE });
        }
        const held = this.#sendHeld();
        // The handle was taken at a resumable point, which the Live API never marks while the model generates or runs calls;
        // what the resumed model already said (handled before this) or what we send now decides otherwise.
        if (held.length > 0 || noted) this.#idle = false;
        else if (!this.#heardSinceLoss) this.#idle = true;
        this.#tellMissed();
        return;
      }
      case "fresh":
        // The fresh session's opening carries the instruction and every later turn.
        this.#userContentUnheld = false;
        this.#options.run.track(this.#openFresh());
        return;
    }
  }

  async #openFresh(): Promise<void> {
    const { undelivered } = this.#options;
    const recap = await freshSessionRecap(
      this.#options.executor,
      this.#options.motions.started(),
      this.#options.signal,
    );
    if (this.#options.run.finished || !this.#options.link.connected) return;
    const told = undelivered.untold().filter((m) => m.settled !== undefined);
    const turns: Content[] = [
      this.#options.instruction,
      ...this.#userTurns,
      { role: "user", parts: [{ text: recap }] },
    ];
    this.#toSend = [];
    this.#idle = false;
    const sent = this.#options.link.sendClientContent(
      { turns, turnComplete: true },
      { kind: "user_content", content: { role: "user", parts: turns.flatMap((t) => t.parts ?? []) } },
    );
    if (!sent) return;
    // Settled motions are in the recap; one still under way is told once it settles, or joined by a repeat.
    for (const m of told) undelivered.told(m.call);
    this.#options.reporter.write("fresh_session_recap", { text: recap, told_call_ids: told.map((m) => m.call.id) });
  }

  /** Sends the user content held for a connection, in order; returns it. */
  #sendHeld(): Content[] {
    const held = this.#toSend.splice(0);
    for (const content of held) if (!this.#sendUser(content)) this.#toSend.push(content);
    return held;
  }

  #sendUser(content: Content): boolean {
    return this.#options.link.sendClientContent(
      { turns: [content], turnComplete: true },
      { kind: "user_content", content },
    );
  }

  /** Ends our wait for these calls; their motions go on and are remembered as undelivered. */
  #missCalls(ids: readonly string[], cause: "cancelled" | "interrupted"): string[] {
    const missed = this.#awaiting.miss(ids, cause, "end_wait");
    for (const a of missed) this.#options.undelivered.miss(a.call, a.response, cause);
    return missed.map((a) => a.call.id);
  }

  #onToolCall(functionCalls: Parameters<typeof identifyCalls>[0]): void {
    const { run, reporter, undelivered } = this.#options;
    if (run.finished) return;
    if (this.turns >= this.#options.maxTurns) {
      run.finish({ kind: "ended", ended: "max_turns" });
      return;
    }
    this.turns++;
    this.#idle = false;
    const calls = identifyCalls(functionCalls);
    reporter.track(calls.map((c) => c.id));
    reporter.write("tool_call", { turn: this.turns, calls });
    reporter.report({ type: "model_turn", turn: this.turns, calls, text: "" });
    if (calls.length === 0) return;
    const dispatched = dispatchLiveCalls(calls, {
      adapter: this.#options.adapter,
      undelivered,
      deadlineAt: this.#options.deadlineAt,
      signal: this.#options.signal,
    });
    const turn = this.turns;
    const batch = dispatched.map((d): AwaitedCall => ({ ...d, turn }));
    for (const a of batch) {
      this.#awaiting.add(a);
      if (a.joined) {
        this.#options.metrics.joined();
        reporter.write("joined", { call: a.call, joined_call_id: a.joined.call.id });
        reporter.report({ type: "joined", call: a.call, joinedCallId: a.joined.call.id });
      } else this.#options.motions.dispatched(a.call);
    }
    run.track(this.#answer(turn, batch));
  }

  /** Answers a toolCall once all its calls settle: those still awaited, in one toolResponse. */
  async #answer(turn: number, batch: readonly AwaitedCall[]): Promise<void> {
    const { run, reporter, undelivered } = this.#options;
    const outcomes = await Promise.all(
      batch.map(async (a) => {
        const r = await a.response;
        if (!this.#awaiting.has(a)) {
          const cause = this.#awaiting.causeOf(a.call.id);
          reporter.write("cancelled_settled", { turn, cause, response: r });
          reporter.report({ type: "cancelled_settled", cause, response: r });
        }
        return r;
      }),
    );
    const answered = batch.filter((a) => this.#awaiting.has(a));
    this.#awaiting.answered(answered);
    if (run.finished || answered.length === 0) return;
    const answers = answered.map((a) => outcomes[batch.indexOf(a)] as FunctionResponse);
    const { params, record } = liveToolResponse(answered, answers, undelivered);
    if (!this.#options.link.sendToolResponse(params, record)) {
      // The connection went as they settled: the next session is told instead.
      answered.forEach((a, i) => {
        undelivered.miss(
          a.joined?.call ?? a.call,
          a.joined?.response ?? Promise.resolve(answers[i] as FunctionResponse),
          "connection_lost",
        );
        reporter.write("cancelled_settled", { turn, cause: "connection_lost", response: answers[i] });
      });
      return;
    }
    this.#idle = false;
    // A delivered result leaves the undelivered set at once: a later identical call is a new request.
    for (const a of answered) if (a.joined) undelivered.told(a.joined.call);
    // Kept for the run's result without their pictures: those went to the model, and an afternoon of them would only grow the heap.
    this.sent.push(...answers.map((r) => ({ id: r.id, name: r.name, response: r.response })));
    reporter.write("tool_response", { turn, responses: answers });
    reporter.report({ type: "responses", turn, responses: answers });
  }

  /**
   * Once every untold motion has settled, and if the model is still idle with
   * nothing awaited, tells it the outcomes in a user turn (which starts its
   * next turn); with nothing left to tell, the run has its answer. Anything
   * that made the model busy meanwhile defers this to its next turnComplete.
   */
  #tellMissed(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    this.#options.run.track(this.#flushMissed());
  }

  async #flushMissed(): Promise<void> {
    const { run, undelivered, reporter, link } = this.#options;
    await undelivered.allSettled();
    this.#flushing = false;
    if (run.finished || !link.connected || !this.#idle || this.#awaiting.size > 0) return;
    const untold = undelivered.untold();
    if (untold.length === 0) {
      run.finish({ kind: "ended", ended: "answered" });
      return;
    }
    if (untold.some((m) => m.settled === undefined)) {
      this.#tellMissed();
      return;
    }
    const note = missedOutcomesNote(untold);
    const sent = link.sendClientContent(
      { turns: [{ role: "user", parts: [{ text: note }] }], turnComplete: true },
      { kind: "motion_outcomes", motions: untold.map((m) => ({ call: m.call, response: m.response })) },
    );
    if (!sent) return;
    for (const m of untold) undelivered.told(m.call);
    this.#idle = false;
    const callIds = untold.map((m) => m.call.id);
    reporter.write("missed_told", { call_ids: callIds, text: note });
    reporter.report({ type: "missed_told", callIds });
  }
}
