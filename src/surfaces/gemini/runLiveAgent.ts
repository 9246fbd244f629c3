import type { Content, GoogleGenAI } from "@google/genai";
import { asArmbridgeError } from "../../errors.js";
import type { AgentResult } from "./AgentEvent.js";
import { AgentMetricsRecorder } from "./AgentMetrics.js";
import { AgentReporter } from "./AgentReporter.js";
import { CameraStreamer, type CameraFeed } from "./CameraStreamer.js";
import { GeminiToolAdapter } from "./GeminiToolAdapter.js";
import { geminiTools } from "./geminiTools.js";
import { imageParts } from "./imageParts.js";
import { DEFAULT_CONTEXT_COMPRESSION, liveConnectConfig, type ContextCompression } from "./liveConnectConfig.js";
import { LiveConversation } from "./LiveConversation.js";
import { LiveRun } from "./LiveRun.js";
import type { LiveSentRecord } from "./LiveSentRecord.js";
import type { ModelLinkEvent } from "./ModelLinkEvent.js";
import { ResumableLiveSession, type ReconnectPolicy } from "./ResumableLiveSession.js";
import { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS, type AgentRunCommon } from "./runAgent.js";
import { RunMotionLog } from "./RunMotionLog.js";
import { AGENT_SYSTEM_INSTRUCTION } from "./systemInstruction.js";
import { UndeliveredMotions } from "./UndeliveredMotions.js";

/** `maxTurns` counts tool-call messages the server may send before we stop. */
export interface RunLiveAgentOptions extends AgentRunCommon {
  /** An SDK client; its `httpOptions.baseUrl` decides where the WebSocket goes. */
  readonly ai: Pick<GoogleGenAI, "live">;
  readonly model: string;
  /**
   * Later user turns (text), sent into the session as they come. A turn sent
   * while calls await their results interrupts them. The run still ends at
   * the model's answer; turns not produced by then are not sent.
   */
  readonly userTurns?: AsyncIterable<string> | undefined;
  /** Context window compression; default a sliding window with the server's own thresholds. */
  readonly compression?: ContextCompression | undefined;
  /** How connections are replaced; default DEFAULT_RECONNECT_POLICY. */
  readonly reconnect?: ReconnectPolicy | undefined;
  /** How long after it settles an undelivered motion still joins a repeat (DEFAULT_JOIN_WINDOW_MS). */
  readonly joinWindowMs?: number | undefined;
  /** A camera whose frames go to the model as realtime video input. */
  readonly streamCamera?: CameraFeed | undefined;
}

/**
 * The agent over a Live API session that outlives its connections: the
 * instruction goes as `clientContent`, each `toolCall` is executed and
 * answered with `sendToolResponse` (LiveConversation); connections end and
 * are replaced — after `goAway`, a dropped socket, a refused resumption —
 * without ending the run (ResumableLiveSession). A call whose result cannot
 * reach the model, whatever the reason, is an undelivered motion: it moves
 * once, a repeat joins it, and the model is told its outcome
 * (UndeliveredMotions).
 *
 * Ends when the model completes a turn with no call awaiting its response
 * and nothing left to tell ("answered"), at max turns, or at the run
 * deadline; every execution this run started is awaited before it returns.
 */
export async function runLiveAgent(options: RunLiveAgentOptions): Promise<AgentResult> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const deadlineMs = options.deadlineMs ?? DEFAULT_AGENT_DEADLINE_MS;
  // Images are read first: a bad file fails the run before any timer or listener exists.
  const instruction: Content = {
    role: "user",
    parts: [{ text: options.instruction }, ...imageParts(options.images ?? [])],
  };
  // The transcript opens before the deadline timer starts: an unwritable path leaves nothing running.
  const reporter = new AgentReporter(options.bridge, options);
  const deadlineAt = Date.now() + deadlineMs;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), deadlineMs);
  const runSignal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const run = new LiveRun();
  const onDeadline = (): void => run.finish({ kind: "ended", ended: "deadline" });
  runSignal.addEventListener("abort", onDeadline, { once: true });

  const metrics = new AgentMetricsRecorder();
  const motions = new RunMotionLog();
  const offMotions = options.bridge.onEvent(motions.onExecutorEvent);
  const reportLink = (event: ModelLinkEvent): void => {
    reporter.write(event.kind, { ...event });
    reporter.report({ type: "link", event });
  };
  const setup = {
    tools: geminiTools(options.bridge.tools, { endpoint: "bidiGenerateContent" }),
    systemInstruction: options.systemInstruction ?? AGENT_SYSTEM_INSTRUCTION,
    compression: options.compression ?? DEFAULT_CONTEXT_COMPRESSION,
  };
  const { session, conversation } = connectConversation(options, setup, {
    run,
    reporter,
    metrics,
    motions,
    instruction,
    maxTurns,
    deadlineAt,
    signal: runSignal,
    reportLink,
  });
  const camera = options.streamCamera
    ? new CameraStreamer({
        feed: options.streamCamera,
        send: (video) => session.sendRealtimeInput({ video }),
        report: reportLink,
      })
    : undefined;

  writeRunStarted(reporter, options, { maxTurns, deadlineMs, compression: setup.compression });
  try {
    session.start();
    camera?.start();
    if (options.userTurns) run.track(relayUserTurns(options.userTurns, run, conversation));
    const o = await run.outcome;
    conversation.abandon();
    await Promise.all([camera?.stop(), session.close()]);
    await run.drain();
    if (o.kind === "failed") throw o.error;
    const summary = metrics.summary();
    const { text, turns, sent } = conversation;
    reporter.write("run_ended", { ended: o.ended, text, turns, notes: [], metrics: summary });
    reporter.report({ type: "ended", ended: o.ended, text, turns });
    return { ended: o.ended, text, turns, responses: sent, notes: [], metrics: summary };
  } catch (error) {
    reporter.write("error", { error: asArmbridgeError(error).toJSON() });
    throw error;
  } finally {
    run.finish({ kind: "ended", ended: "deadline" });
    await Promise.all([camera?.stop(), session.close()]);
    offMotions();
    runSignal.removeEventListener("abort", onDeadline);
    clearTimeout(timer);
    reporter.close();
  }
}

/** The transcript's first line: what this run was asked and with what limits. */
function writeRunStarted(
  reporter: AgentReporter,
  options: RunLiveAgentOptions,
  limits: { maxTurns: number; deadlineMs: number; compression: Parameters<typeof liveConnectConfig>[0]["compression"] },
): void {
  reporter.write("run_started", {
    model: options.model,
    instruction: options.instruction,
    images: options.images ?? [],
    max_turns: limits.maxTurns,
    deadline_ms: limits.deadlineMs,
    live: true,
    context_compression: limits.compression,
    ...(options.streamCamera
      ? { stream_camera: { camera: options.streamCamera.camera, fps: options.streamCamera.fps } }
      : {}),
  });
}

/** What the conversation shares with the run around it. */
interface LiveRunParts {
  readonly run: LiveRun;
  readonly reporter: AgentReporter;
  readonly metrics: AgentMetricsRecorder;
  readonly motions: RunMotionLog;
  readonly instruction: Content;
  readonly maxTurns: number;
  readonly deadlineAt: number;
  readonly signal: AbortSignal;
  readonly reportLink: (event: ModelLinkEvent) => void;
}

/** The Live session and the conversation held on it: each answers the other's events. */
function connectConversation(
  options: RunLiveAgentOptions,
  setup: Parameters<typeof liveConnectConfig>[0],
  parts: LiveRunParts,
): { session: ResumableLiveSession<LiveSentRecord>; conversation: LiveConversation } {
  // The session's callbacks run only after start(), by when the conversation exists.
  const session: ResumableLiveSession<LiveSentRecord> = new ResumableLiveSession<LiveSentRecord>({
    ai: options.ai,
    model: options.model,
    config: (handle) => liveConnectConfig(setup, handle),
    policy: options.reconnect,
    signal: parts.signal,
    busy: (): boolean => conversation.busy(),
    on: {
      message: (m) => conversation.onMessage(m),
      lost: (loss) => conversation.onLost(loss),
      opened: (start) => conversation.onOpened(start),
      event: (e) => {
        if (e.kind === "reconnected") parts.metrics.reconnected(e.durationMs, e.mode);
        parts.reportLink(e);
      },
      handle: (handle) => parts.reporter.write("session_resumption_update", { new_handle: handle, resumable: true }),
      answered: (ms) => parts.metrics.modelAnswered(ms),
      failed: (error) => parts.run.fail(error),
    },
  });
  const { run, reporter, metrics, motions, instruction, maxTurns, deadlineAt, signal } = parts;
  const conversation: LiveConversation = new LiveConversation({
    run,
    link: session,
    adapter: new GeminiToolAdapter(options.bridge),
    executor: options.bridge,
    undelivered: new UndeliveredMotions(options.bridge.tools, { joinWindowMs: options.joinWindowMs }),
    motions,
    reporter,
    metrics,
    instruction,
    maxTurns,
    deadlineAt,
    signal,
  });
  return { session, conversation };
}

/** Sends each later user turn as it comes; one that arrives while calls are awaited interrupts them. */
async function relayUserTurns(
  turnsIn: AsyncIterable<string>,
  run: LiveRun,
  conversation: LiveConversation,
): Promise<void> {
  const iterator = turnsIn[Symbol.asyncIterator]();
  const ended = run.outcome.then(() => undefined);
  try {
    while (!run.finished) {
      const next = await Promise.race([iterator.next(), ended]);
      if (next === undefined || next.done === true || run.finished) return;
      conversation.userTurn(next.value);
    }
  } finally {
    // A generator parked on its own await finishes its return() later; nothing here waits for it.
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}
