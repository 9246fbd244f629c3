import { Modality, type GoogleGenAI, type LiveServerMessage, type Session } from "@google/genai";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { AgentEnd, AgentResult } from "./AgentEvent.js";
import { AgentReporter } from "./AgentReporter.js";
import { GeminiToolAdapter, identifyCalls, type IdentifiedCall } from "./GeminiToolAdapter.js";
import { geminiTools } from "./geminiTools.js";
import { imageParts } from "./imageParts.js";
import { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS, type AgentRunCommon } from "./runAgent.js";
import { AGENT_SYSTEM_INSTRUCTION } from "./systemInstruction.js";
import { missedOutcomesNote, UndeliveredMotions, type MissCause } from "./UndeliveredMotions.js";

/** `maxTurns` counts tool-call messages the server may send before we stop. */
export interface RunLiveAgentOptions extends AgentRunCommon {
  /** An SDK client; its `httpOptions.baseUrl` decides where the WebSocket goes. */
  readonly ai: Pick<GoogleGenAI, "live">;
  readonly model: string;
  /**
   * Later user turns (text), sent into the session as they come. A turn sent
   * while calls await their results interrupts them (see below). The run
   * still ends at the model's answer; turns not produced by then are not sent.
   */
  readonly userTurns?: AsyncIterable<string> | undefined;
}

type Outcome = { readonly kind: "ended"; readonly ended: AgentEnd } | { readonly kind: "failed"; readonly error: ArmbridgeError };

/**
 * The agent over a Live API session (`ai.live.connect`): the instruction goes
 * as `clientContent`, each `toolCall` is executed (all its calls dispatched
 * together) and answered with `sendToolResponse({functionResponses})`.
 *
 * A call's result can fail to reach the model in two ways: the server sends
 * `toolCallCancellation {ids}`, or a turn interrupts the session while the
 * call runs (a user turn from `userTurns`, or `serverContent.interrupted`,
 * e.g. the user speaking) — with `behavior: BLOCKING` the server then drops
 * the pending call with no cancellation at all (see UndeliveredMotions). Either
 * way OUR WAIT ends: a motion under way is not stopped and never re-issued
 * (the executor settles it by observation, as after any timeout), a call still
 * waiting for a joint lock never starts, and no response goes out for it.
 * Instead the model is told the outcome: a later call of the same motion
 * (same tool, same parsed arguments) joins it and answers with its result,
 * and whatever is still untold when the model finishes a turn is sent as a
 * user note once settled, before the run may end.
 *
 * Ends when the model completes a turn with no call awaiting its response
 * and nothing left to tell ("answered"), at max turns, or at the run
 * deadline; every execution this run started is awaited before it returns.
 */
export async function runLiveAgent(options: RunLiveAgentOptions): Promise<AgentResult> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const deadlineMs = options.deadlineMs ?? DEFAULT_AGENT_DEADLINE_MS;
  // The transcript opens before the deadline timer starts: an unwritable path leaves nothing running.
  const reporter = new AgentReporter(options.bridge, options);
  const deadlineAt = Date.now() + deadlineMs;
  const run = new AbortController();
  const timer = setTimeout(() => run.abort(), deadlineMs);
  const runSignal = options.signal ? AbortSignal.any([run.signal, options.signal]) : run.signal;
  const adapter = new GeminiToolAdapter(options.bridge.executor);

  let resolveOutcome: (o: Outcome) => void = () => undefined;
  const outcome = new Promise<Outcome>((resolve) => (resolveOutcome = resolve));
  let finished = false;
  const finish = (o: Outcome): void => {
    if (finished) return;
    finished = true;
    resolveOutcome(o);
  };
  const onDeadline = (): void => finish({ kind: "ended", ended: "deadline" });
  runSignal.addEventListener("abort", onDeadline, { once: true });

  const work: Promise<void>[] = [];
  /** Calls dispatched and not yet answered, cancelled or interrupted: the controller that ends our wait, and the call. */
  const awaiting = new Map<string, { readonly controller: AbortController; readonly call: IdentifiedCall; response?: Promise<FunctionResponse> }>();
  /** Why our wait for a call ended early, for the transcript. */
  const missCause = new Map<string, MissCause>();
  /** Repeats answered by joining an undelivered motion, by call id: their delivery tells the model that motion's outcome. */
  const joins = new Map<string, IdentifiedCall>();
  const undelivered = new UndeliveredMotions(options.bridge.registry);
  const sent: FunctionResponse[] = [];
  let session: Session | undefined;
  let turns = 0;
  let text = "";
  let textOfTurn = "";
  /** The model has completed its turn and we have sent nothing since: a note now interrupts nothing. */
  let idle = false;
  let flushing = false;

  /** Ends our wait for these calls; their motions go on and are remembered as undelivered. */
  const missCalls = (ids: readonly string[], cause: MissCause): string[] => {
    const missed: string[] = [];
    for (const id of ids) {
      const a = awaiting.get(id);
      if (!a) continue;
      awaiting.delete(id);
      missCause.set(id, cause);
      a.controller.abort();
      if (a.response) undelivered.miss(a.call, a.response, cause);
      missed.push(id);
    }
    return missed;
  };

  const onToolCall = (message: NonNullable<LiveServerMessage["toolCall"]>): void => {
    if (finished) return;
    if (turns >= maxTurns) {
      finish({ kind: "ended", ended: "max_turns" });
      return;
    }
    turns++;
    idle = false;
    const calls = identifyCalls(message.functionCalls ?? []);
    reporter.track(calls.map((c) => c.id));
    reporter.write("tool_call", { turn: turns, calls });
    reporter.report({ type: "model_turn", turn: turns, calls, text: "" });
    if (calls.length === 0) return;
    for (const c of calls) awaiting.set(c.id, { controller: new AbortController(), call: c });
    // A repeat of an undelivered motion joins it; everything else goes to the executor, in the model's order.
    const repeats = calls.map((c) => undelivered.repeatOf(c));
    const fresh = calls.filter((_, i) => repeats[i] === undefined);
    const freshPromises = adapter.respondEach(fresh, {
      deadlineMs: Math.max(0, deadlineAt - Date.now()),
      signal: runSignal,
      signalFor: (id) => (awaiting.get(id) as { controller: AbortController }).controller.signal,
    });
    let k = 0;
    const promises = calls.map((call, i) => {
      const motion = repeats[i];
      if (motion === undefined) return freshPromises[k++] as Promise<FunctionResponse>;
      joins.set(call.id, call);
      reporter.write("joined", { call, joined_call_id: motion.call.id });
      reporter.report({ type: "joined", call, joinedCallId: motion.call.id });
      return undelivered.join(call, motion);
    });
    calls.forEach((c, i) => {
      const a = awaiting.get(c.id);
      if (a) a.response = promises[i] as Promise<FunctionResponse>;
    });
    const turn = turns;
    work.push(
      (async () => {
        const outcomes = await Promise.all(
          calls.map(async (call, i) => {
            const controller = (awaiting.get(call.id) as { controller: AbortController }).controller;
            const pending = promises[i] as Promise<FunctionResponse>;
            const cancelled = new Promise<"cancelled">((resolve) => {
              if (controller.signal.aborted) resolve("cancelled");
              else controller.signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
            });
            const first = await Promise.race([pending, cancelled]);
            if (first !== "cancelled") return first;
            const late = await pending;
            const cause = missCause.get(call.id) ?? "cancelled";
            reporter.write("cancelled_settled", { turn, cause, response: late });
            reporter.report({ type: "cancelled_settled", cause, response: late });
            return undefined;
          }),
        );
        const answers = outcomes.filter((r): r is FunctionResponse => r !== undefined && awaiting.has(r.id));
        for (const r of answers) awaiting.delete(r.id);
        if (finished || answers.length === 0 || !session) return;
        // A result's pictures go inside its function response (FunctionResponse.parts): a separate clientContent turn now would itself interrupt the model.
        session.sendToolResponse({
          functionResponses: answers.map((r) => ({ id: r.id, name: r.name, response: { ...r.response }, ...(r.parts ? { parts: r.parts.map((p) => ({ inlineData: { ...p.inlineData } })) } : {}) })),
        });
        idle = false;
        for (const r of answers) {
          const repeat = joins.get(r.id);
          if (repeat) undelivered.told(repeat);
        }
        sent.push(...answers);
        reporter.write("tool_response", { turn, responses: answers });
        reporter.report({ type: "responses", turn, responses: answers });
      })().catch((error: unknown) => finish({ kind: "failed", error: asArmbridgeError(error) })),
    );
  };

  /**
   * Once every untold motion has settled, and if the model is still idle with
   * nothing awaited, tells it the outcomes in a user turn (which starts its
   * next turn); with nothing left to tell, the run has its answer. Anything
   * that made the model busy meanwhile defers this to its next turnComplete.
   */
  const tellMissed = (): void => {
    if (flushing) return;
    flushing = true;
    work.push(
      (async () => {
        await undelivered.allSettled();
        flushing = false;
        if (finished || !session || !idle || awaiting.size > 0) return;
        const untold = undelivered.untold();
        if (untold.length === 0) {
          finish({ kind: "ended", ended: "answered" });
          return;
        }
        if (untold.some((m) => m.settled === undefined)) {
          tellMissed();
          return;
        }
        const note = missedOutcomesNote(untold);
        for (const m of untold) undelivered.told(m.call);
        idle = false;
        session.sendClientContent({ turns: [{ role: "user", parts: [{ text: note }] }], turnComplete: true });
        const callIds = untold.map((m) => m.call.id);
        reporter.write("missed_told", { call_ids: callIds, text: note });
        reporter.report({ type: "missed_told", callIds });
      })().catch((error: unknown) => finish({ kind: "failed", error: asArmbridgeError(error) })),
    );
  };

  const interruptAwaiting = (): void => {
    const ids = missCalls([...awaiting.keys()], "interrupted");
    if (ids.length === 0) return;
    reporter.write("interrupted", { call_ids: ids });
    reporter.report({ type: "interrupted", callIds: ids });
  };

  const onMessage = (message: LiveServerMessage): void => {
    if (message.setupComplete) reporter.write("setup_complete", { setupComplete: message.setupComplete });
    if (message.toolCall) onToolCall(message.toolCall);
    if (message.toolCallCancellation) {
      reporter.write("tool_call_cancellation", { ids: message.toolCallCancellation.ids ?? [] });
      const ids = missCalls(message.toolCallCancellation.ids ?? [], "cancelled");
      if (ids.length > 0) reporter.report({ type: "cancelled", callIds: ids });
    }
    const content = message.serverContent;
    if (content) {
      if (content.interrupted === true) interruptAwaiting();
      for (const p of content.modelTurn?.parts ?? []) if (typeof p.text === "string" && p.thought !== true) textOfTurn += p.text;
      if (content.turnComplete) {
        reporter.write("model_turn", { turn: turns + 1, content: { role: "model", parts: [{ text: textOfTurn }] } });
        if (textOfTurn) text = textOfTurn;
        textOfTurn = "";
        // A turn the model completes while calls still await their responses is not its answer: it goes on once they arrive.
        if (awaiting.size === 0) {
          turns++;
          idle = true;
          reporter.report({ type: "model_turn", turn: turns, calls: [], text });
          if (undelivered.untold().length > 0) tellMissed();
          else finish({ kind: "ended", ended: "answered" });
        }
      }
    }
  };

  /** Sends each later user turn as it comes; one that arrives while calls are awaited interrupts them. */
  const relayUserTurns = async (turnsIn: AsyncIterable<string>, live: Session): Promise<void> => {
    const iterator = turnsIn[Symbol.asyncIterator]();
    const ended = outcome.then(() => undefined);
    try {
      while (!finished) {
        const next = await Promise.race([iterator.next(), ended]);
        if (next === undefined || next.done === true || finished) return;
        interruptAwaiting();
        idle = false;
        live.sendClientContent({ turns: [{ role: "user", parts: [{ text: next.value }] }], turnComplete: true });
        reporter.write("user_turn", { text: next.value });
        reporter.report({ type: "user_turn", text: next.value });
      }
    } finally {
      // A generator parked on its own await finishes its return() later; nothing here waits for it.
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  };

  const closed = (why: string): void =>
    finish({ kind: "failed", error: new ArmbridgeError("ARMB_ERR_GEMINI_API", { reason: `the Live session ended before the model finished: ${why}` }) });

  reporter.write("run_started", { model: options.model, instruction: options.instruction, images: options.images ?? [], max_turns: maxTurns, deadline_ms: deadlineMs, live: true });
  try {
    const userParts = [{ text: options.instruction }, ...imageParts(options.images ?? [])];
    const connecting = options.ai.live.connect({
      model: options.model,
      config: { responseModalities: [Modality.TEXT], tools: [...geminiTools(options.bridge.registry, { endpoint: "bidiGenerateContent" })], systemInstruction: options.systemInstruction ?? AGENT_SYSTEM_INSTRUCTION },
      callbacks: {
        onmessage: onMessage,
        onerror: (e: unknown) => closed(`WebSocket error: ${describeSocketEvent(e)}`),
        onclose: (e: unknown) => closed(`WebSocket closed (${describeSocketEvent(e)})`),
      },
    });
    // connect() waits for the socket to open and for setupComplete, with no deadline of its own.
    const first = await Promise.race([connecting, outcome]);
    if ("kind" in first) {
      void connecting.then((late) => late.close(), () => undefined);
    } else {
      session = first;
      if (!finished) {
        session.sendClientContent({ turns: [{ role: "user", parts: userParts }], turnComplete: true });
        if (options.userTurns) work.push(relayUserTurns(options.userTurns, session).catch((error: unknown) => finish({ kind: "failed", error: asArmbridgeError(error) })));
      }
    }
    const o = await outcome;
    // Stop waiting for anything still under way; the executor observes and settles it.
    for (const a of awaiting.values()) a.controller.abort();
    // Work may add work (a note waits for settlements): wait until none is left.
    while (work.length > 0) await Promise.all(work.splice(0));
    if (o.kind === "failed") throw o.error;
    reporter.write("run_ended", { ended: o.ended, text, turns, notes: [] });
    reporter.report({ type: "ended", ended: o.ended, text, turns });
    return { ended: o.ended, text, turns, responses: sent, notes: [] };
  } catch (error) {
    reporter.write("error", { error: asArmbridgeError(error).toJSON() });
    throw error;
  } finally {
    finished = true;
    try {
      session?.close();
    } catch {
      // already closed by the server
    }
    runSignal.removeEventListener("abort", onDeadline);
    clearTimeout(timer);
    reporter.close();
  }
}

/** ws's ErrorEvent / CloseEvent, without DOM types. */
function describeSocketEvent(e: unknown): string {
  const { message, code, reason } = (e ?? {}) as { message?: unknown; code?: unknown; reason?: unknown };
  const parts = [typeof code === "number" ? `code ${code}` : "", typeof reason === "string" ? reason : "", typeof message === "string" ? message : ""].filter((p) => p !== "");
  return parts.join(", ") || "no detail";
}
