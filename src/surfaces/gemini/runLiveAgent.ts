import { Modality, type GoogleGenAI, type LiveServerMessage, type Session } from "@google/genai";
import { ArmbridgeError, asArmbridgeError } from "../../errors.js";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { AgentEnd, AgentResult } from "./AgentEvent.js";
import { AgentReporter } from "./AgentReporter.js";
import { GeminiToolAdapter, identifyCalls } from "./GeminiToolAdapter.js";
import { geminiTools } from "./geminiTools.js";
import { imageParts } from "./imageParts.js";
import { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS, type AgentRunCommon } from "./runAgent.js";
import { AGENT_SYSTEM_INSTRUCTION } from "./systemInstruction.js";

/** `maxTurns` counts tool-call messages the server may send before we stop. */
export interface RunLiveAgentOptions extends AgentRunCommon {
  /** An SDK client; its `httpOptions.baseUrl` decides where the WebSocket goes. */
  readonly ai: Pick<GoogleGenAI, "live">;
  readonly model: string;
}

type Outcome = { readonly kind: "ended"; readonly ended: AgentEnd } | { readonly kind: "failed"; readonly error: ArmbridgeError };

/**
 * The agent over a Live API session (`ai.live.connect`): the instruction goes
 * as `clientContent`, each `toolCall` is executed (all its calls dispatched
 * together) and answered with `sendToolResponse({functionResponses})`.
 *
 * `toolCallCancellation {ids}` ends OUR WAIT for those calls only: their
 * motions are not stopped and never re-issued; the executor settles them by
 * observation as after any timeout, and that result goes to the transcript,
 * not to the model (which has dropped those calls). A cancelled call still
 * waiting for a joint lock never starts.
 *
 * Ends when the model completes a turn with no call awaiting its response
 * ("answered"), at max turns, or at the run deadline; every execution this
 * run started is awaited before it returns.
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
  /** Calls dispatched and not yet answered or cancelled, with the controller that ends our wait for each. */
  const awaiting = new Map<string, AbortController>();
  const sent: FunctionResponse[] = [];
  let session: Session | undefined;
  let turns = 0;
  let text = "";
  let textOfTurn = "";

  const onToolCall = (message: NonNullable<LiveServerMessage["toolCall"]>): void => {
    if (finished) return;
    if (turns >= maxTurns) {
      finish({ kind: "ended", ended: "max_turns" });
      return;
    }
    turns++;
    const calls = identifyCalls(message.functionCalls ?? []);
    reporter.track(calls.map((c) => c.id));
    reporter.write("tool_call", { turn: turns, calls });
    reporter.report({ type: "model_turn", turn: turns, calls, text: "" });
    if (calls.length === 0) return;
    for (const c of calls) awaiting.set(c.id, new AbortController());
    const promises = adapter.respondEach(calls, {
      deadlineMs: Math.max(0, deadlineAt - Date.now()),
      signal: runSignal,
      signalFor: (id) => (awaiting.get(id) as AbortController).signal,
    });
    const turn = turns;
    work.push(
      (async () => {
        const outcomes = await Promise.all(
          calls.map(async (call, i) => {
            const controller = awaiting.get(call.id) as AbortController;
            const pending = promises[i] as Promise<FunctionResponse>;
            const cancelled = new Promise<"cancelled">((resolve) => {
              if (controller.signal.aborted) resolve("cancelled");
              else controller.signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
            });
            const first = await Promise.race([pending, cancelled]);
            if (first !== "cancelled") return first;
            const late = await pending;
            reporter.write("cancelled_settled", { turn, response: late });
            reporter.report({ type: "cancelled_settled", response: late });
            return undefined;
          }),
        );
        const answers = outcomes.filter((r): r is FunctionResponse => r !== undefined && awaiting.has(r.id));
        for (const r of answers) awaiting.delete(r.id);
        if (finished || answers.length === 0 || !session) return;
        session.sendToolResponse({ functionResponses: answers.map((r) => ({ id: r.id, name: r.name, response: { ...r.response } })) });
        sent.push(...answers);
        reporter.write("tool_response", { turn, responses: answers });
        reporter.report({ type: "responses", turn, responses: answers });
      })().catch((error: unknown) => finish({ kind: "failed", error: asArmbridgeError(error) })),
    );
  };

  const onMessage = (message: LiveServerMessage): void => {
    if (message.setupComplete) reporter.write("setup_complete", { setupComplete: message.setupComplete });
    if (message.toolCall) onToolCall(message.toolCall);
    if (message.toolCallCancellation) {
      const ids = (message.toolCallCancellation.ids ?? []).filter((id) => awaiting.has(id));
      reporter.write("tool_call_cancellation", { ids: message.toolCallCancellation.ids ?? [] });
      for (const id of ids) {
        awaiting.get(id)?.abort();
        awaiting.delete(id);
      }
      if (ids.length > 0) reporter.report({ type: "cancelled", callIds: ids });
    }
    const content = message.serverContent;
    if (content) {
      for (const p of content.modelTurn?.parts ?? []) if (typeof p.text === "string" && p.thought !== true) textOfTurn += p.text;
      if (content.turnComplete) {
        reporter.write("model_turn", { turn: turns + 1, content: { role: "model", parts: [{ text: textOfTurn }] } });
        if (textOfTurn) text = textOfTurn;
        textOfTurn = "";
        // A turn the model completes while calls still await their responses is not its answer: it goes on once they arrive.
        if (awaiting.size === 0) {
          turns++;
          reporter.report({ type: "model_turn", turn: turns, calls: [], text });
          finish({ kind: "ended", ended: "answered" });
        }
      }
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
      if (!finished) session.sendClientContent({ turns: [{ role: "user", parts: userParts }], turnComplete: true });
    }
    const o = await outcome;
    // Stop waiting for anything still under way; the executor observes and settles it.
    for (const c of awaiting.values()) c.abort();
    await Promise.all(work);
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
