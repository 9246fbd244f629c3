import type { Content } from "@google/genai";
import { asArmbridgeError } from "../../errors.js";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { BridgePort } from "../../bridge/BridgePort.js";
import type { AgentEnd, AgentResult, ProgressListener } from "./AgentEvent.js";
import { AgentMetricsRecorder } from "./AgentMetrics.js";
import { AgentReporter } from "./AgentReporter.js";
import { GeminiToolAdapter, identifyCalls } from "./GeminiToolAdapter.js";
import { functionResponseContent } from "./functionResponseContent.js";
import { geminiTools } from "./geminiTools.js";
import { imageParts } from "./imageParts.js";
import type { ModelClient, ModelRequest, ModelTurn } from "./ModelClient.js";
import { ReplayModelClient } from "./ReplayModelClient.js";
import { AGENT_SYSTEM_INSTRUCTION } from "./systemInstruction.js";

export const DEFAULT_MAX_TURNS = 20;
export const DEFAULT_AGENT_DEADLINE_MS = 300_000;

/** What every agent run takes, unary or Live. */
export interface AgentRunCommon {
  readonly bridge: BridgePort;
  readonly instruction: string;
  /** Image files sent with the instruction as inlineData. */
  readonly images?: readonly string[] | undefined;
  readonly maxTurns?: number | undefined;
  /** The whole run's deadline: model calls and motions alike. */
  readonly deadlineMs?: number | undefined;
  readonly transcriptPath?: string | undefined;
  readonly onProgress?: ProgressListener | undefined;
  readonly systemInstruction?: string | undefined;
  /** Ends the run early (Ctrl-C): counts as the deadline. Motions are not stopped. */
  readonly signal?: AbortSignal | undefined;
}

export interface RunAgentOptions extends AgentRunCommon {
  readonly model: ModelClient;
}

/**
 * The unary agent loop: send the conversation, execute the model's calls
 * (one `execute` per turn), send back one functionResponse per call with the
 * same id, until the model answers in text without calls, or max turns or
 * the run deadline ends it. Rejects only when the model cannot be reached or
 * a replay does not match (ArmbridgeError); motions are never retried.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  // Images are read first: a bad file fails the run before any timer or listener exists.
  const contents: Content[] = [
    { role: "user", parts: [{ text: options.instruction }, ...imageParts(options.images ?? [])] },
  ];
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const deadlineMs = options.deadlineMs ?? DEFAULT_AGENT_DEADLINE_MS;
  // The transcript opens before the deadline timer starts: an unwritable path leaves nothing running.
  const reporter = new AgentReporter(options.bridge, options);
  const deadlineAt = Date.now() + deadlineMs;
  const run = new AbortController();
  const timer = setTimeout(() => run.abort(), deadlineMs);
  const signal = options.signal ? AbortSignal.any([run.signal, options.signal]) : run.signal;
  const adapter = new GeminiToolAdapter(options.bridge);
  const tools = geminiTools(options.bridge.tools, { endpoint: "generateContent" });

  const metrics = new AgentMetricsRecorder();
  const sent: FunctionResponse[] = [];
  let text = "";
  let turns = 0;
  let ended: AgentEnd = "max_turns";
  reporter.write("run_started", {
    model: options.model.model,
    instruction: options.instruction,
    images: options.images ?? [],
    max_turns: maxTurns,
    deadline_ms: deadlineMs,
    live: false,
  });
  try {
    while (true) {
      if (signal.aborted) {
        ended = "deadline";
        break;
      }
      if (turns >= maxTurns) {
        ended = "max_turns";
        break;
      }
      const turn = await askModel(options, { contents, tools, signal, deadlineAt }, turns + 1, metrics, reporter);
      if (!turn) {
        ended = "deadline";
        break;
      }
      turns++;
      contents.push(turn.content);
      if (turn.text) text = turn.text;
      const calls = identifyCalls(turn.calls);
      reportTurn(reporter, turns, turn, calls);
      if (calls.length === 0) {
        ended = "answered";
        break;
      }
      reporter.write("calls", { turn: turns, calls });
      const left = deadlineAt - Date.now();
      const responses = await adapter.respond(calls, {
        deadlineMs: Math.max(0, Math.min(left, turn.deadlineMs ?? left)),
        signal,
      });
      reporter.write("responses", { turn: turns, responses });
      reporter.report({ type: "responses", turn: turns, responses });
      sent.push(...responses);
      // Pictures (get_camera_image) go inside the function responses where the model reads them there, else after them.
      contents.push(functionResponseContent(responses, options.model.model));
    }
    const notes = options.model instanceof ReplayModelClient ? [...options.model.expectationMisses()] : [];
    const summary = metrics.summary();
    reporter.write("run_ended", { ended, text, turns, notes, metrics: summary });
    reporter.report({ type: "ended", ended, text, turns });
    return { ended, text, turns, responses: sent, notes, metrics: summary };
  } catch (error) {
    reporter.write("error", { error: asArmbridgeError(error).toJSON() });
    throw error;
  } finally {
    clearTimeout(timer);
    reporter.close();
  }
}

/** One model request of the loop, its retries reported; undefined when the run's deadline or signal ended it. */
async function askModel(
  options: RunAgentOptions,
  request: Pick<ModelRequest, "contents" | "tools" | "signal" | "deadlineAt">,
  turn: number,
  metrics: AgentMetricsRecorder,
  reporter: AgentReporter,
): Promise<ModelTurn | undefined> {
  const asked = Date.now();
  try {
    const answer = await options.model.generate({
      ...request,
      systemInstruction: options.systemInstruction ?? AGENT_SYSTEM_INSTRUCTION,
      // A retry repeats the model request only: this turn's tools have not run yet, and never run twice.
      onRetry: (retry) => {
        metrics.retried();
        reporter.write("model_retry", { turn, ...retry });
        reporter.report({ type: "link", event: { kind: "model_retry", retry } });
      },
    });
    metrics.modelAnswered(Date.now() - asked);
    return answer;
  } catch (error) {
    if (request.signal?.aborted) return undefined;
    throw error;
  }
}

/** The model's turn into the transcript and to the listener. */
function reportTurn(
  reporter: AgentReporter,
  turns: number,
  turn: ModelTurn,
  calls: ReturnType<typeof identifyCalls>,
): void {
  reporter.track(calls.map((c) => c.id));
  // The scripted keys go along, so the transcript replays the same session.
  reporter.write("model_turn", {
    turn: turns,
    content: turn.content,
    ...(turn.note === undefined ? {} : { note: turn.note }),
    ...(turn.deadlineMs === undefined ? {} : { deadline_ms: turn.deadlineMs }),
    ...(turn.expect === undefined ? {} : { expect: turn.expect }),
  });
  reporter.report({ type: "model_turn", turn: turns, calls, text: turn.text, note: turn.note });
}
