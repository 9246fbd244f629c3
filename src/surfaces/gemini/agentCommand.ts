import { constants } from "node:os";
import { createInterface } from "node:readline";
import { Bridge } from "../../bridge/Bridge.js";
import { MIME_TYPES } from "../../cameras/encodeImage.js";
import { ArmbridgeError, asArmbridgeError, type ErrorCode } from "../../errors.js";
import { resultOf } from "../toFunctionResponse.js";
import { createLogger } from "../../observability/logger.js";
import { BRIDGE_FLAGS_HELP, parseBridgeFlags } from "../cli/bridgeFlags.js";
import type { CliIo } from "../cli/CliIo.js";
import type { AgentEnd, AgentResult } from "./AgentEvent.js";
import { DEFAULT_STREAM_FPS, STREAM_FPS_RANGE, type CameraFeed } from "./CameraStreamer.js";
import { createGoogleGenAI, DEFAULT_GEMINI_LIVE_MODEL, DEFAULT_GEMINI_MODEL, GeminiModelClient } from "./GeminiModelClient.js";
import type { ModelClient } from "./ModelClient.js";
import { parseAgentArgs, type AgentArgs } from "./parseAgentArgs.js";
import { ReplayModelClient } from "./ReplayModelClient.js";
import { DEFAULT_RECONNECT_POLICY } from "./ResumableLiveSession.js";
import { DEFAULT_MODEL_RETRY_POLICY } from "./retryModelRequest.js";
import { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS, runAgent } from "./runAgent.js";
import { runLiveAgent } from "./runLiveAgent.js";
import { DEFAULT_JOIN_WINDOW_MS } from "./UndeliveredMotions.js";

export const AGENT_USAGE = `usage: armbridge agent "<instruction>" [options] (--serial LINK | --ros ...)

Runs a Gemini agent on the arm: the model's function calls go through the
bridge (per-joint locks, timeouts settled by observation, the intent ledger).
Progress goes to stderr, one line per motion event; the outcome is one JSON
line on stdout: {"event":"agent_finished","ended":"answered"|"max_turns"|"deadline",...,"metrics":{...}}.

  --model ID|replay:FILE  Gemini model (default ${DEFAULT_GEMINI_MODEL}; with --live ${DEFAULT_GEMINI_LIVE_MODEL}), or
                          replay:FILE to replay recorded model turns offline (JSONL;
                          see config/demo-session.jsonl). Needs GEMINI_API_KEY unless replay.
  --live                  use a Live API session (ai.live.connect) instead of generateContent;
                          lines typed on a terminal while it runs go to the model as user turns
                          (one that arrives during a motion interrupts it; see docs/reliability.md)
  --max-turns N           model turns before stopping (default ${DEFAULT_MAX_TURNS})
  --deadline-ms N         run deadline for model calls and motions (default ${DEFAULT_AGENT_DEADLINE_MS})
  --image FILE            attach an image (png, jpg, webp, heic, heif); repeatable
  --transcript FILE       write every model turn, call and response as JSONL
  --base-url URL          another Gemini endpoint (the SDK's httpOptions.baseUrl)
  --api-version V         the SDK's httpOptions.apiVersion (default v1beta)
  --model-attempts N      without --live: attempts per model request (default ${DEFAULT_MODEL_RETRY_POLICY.attempts}); 408, 429,
                          5xx and reset connections are retried after the server's Retry-After /
                          RetryInfo delay or a back-off, never past the deadline; tools never re-run
  --help                  this text

Live sessions (--live) outlive their connections: after the server's goAway or
a dropped socket the session resumes from its newest handle (a fresh session,
told from the ledger what the arm did, if the handle is refused), and a call
whose result was lost with a connection is never run twice (docs/reliability.md):
  --context-compression on|off      sliding-window context compression (default on;
                                    without it a session with images ends after ~2 min)
  --compression-trigger-tokens N    context size that triggers it (default: the server's)
  --compression-target-tokens N     tokens kept after it (default: half the trigger)
  --reconnect-attempts N            failed connection attempts in a row before the run
                                    fails (default ${DEFAULT_RECONNECT_POLICY.attempts})
  --join-window-ms N                how long after it settled a lost motion still answers
                                    a repeat of it instead of moving again (default ${DEFAULT_JOIN_WINDOW_MS})
  --stream-camera NAME              send camera NAME's frames as realtime video input (JPEG,
                                    at most 768 px and 256 KiB a frame)
  --fps F                           its frame rate, ${STREAM_FPS_RANGE.min}..${STREAM_FPS_RANGE.max} (default ${DEFAULT_STREAM_FPS})

${BRIDGE_FLAGS_HELP}

The bridge runs in this process, with no HTTP API or console: no operator
could approve a call, so a config with approval gates (approval: {tool: always},
or joints) is refused at start (ARMB_ERR_APPROVAL_UNANSWERABLE, exit 2). To
gate calls on approval, run the arm under \`armbridge serve\` (console, \`armbridge approve\`).

Exit codes: 0 the model answered; 3 stopped at max turns or the deadline;
2 bad usage (including no GEMINI_API_KEY); 1 any other failure, stdout closed
before the outcome line could be written (EPIPE) included; 128+N stopped by
signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP: a closed terminal), with
"stopped_by" in the outcome line; a signal ends every wait at once, so a call
in flight reads unknown until the next start reconciles it. However it ends,
the arm link and the ledger are closed; motions under way are not stopped.`;

/** Each ends the run cleanly; SIGHUP is a closed terminal. */
const AGENT_STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type StopSignal = (typeof AGENT_STOP_SIGNALS)[number];
/** How long the outcome line may wait for a reader that is not reading before it counts as undelivered. */
const OUTCOME_WRITE_LIMIT_MS = 10_000;

const EXIT_BY_END: Readonly<Record<AgentEnd, number>> = { answered: 0, max_turns: 3, deadline: 3 };
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set(["ARMB_ERR_CLI_USAGE", "ARMB_ERR_GEMINI_NO_KEY", "ARMB_ERR_GEMINI_REPLAY", "ARMB_ERR_CONFIG_READ", "ARMB_ERR_CONFIG_INVALID", "ARMB_ERR_APPROVAL_UNANSWERABLE"]);


/** The embedded agent serves no HTTP API or console: nobody could answer an approval request (its gates are refused at start). */
const AGENT_OPERATOR_SURFACE = { kind: "none", why: "`armbridge agent` runs its bridge without an HTTP API or console where an operator could approve" } as const;

/** `armbridge agent`: exit code per AGENT_USAGE. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(AGENT_USAGE + "\n");
    return 0;
  }
  let bridge: Bridge | undefined;
  const interrupt = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const onSignal = (signal: StopSignal): void => {
    stoppedBy ??= signal;
    interrupt.abort(signal);
    // Every wait ends now, observation too (as serve and mcp do): a call in flight answers
    // `unknown` and its row stays `started` for the next start to reconcile. Otherwise a closed
    // terminal would keep the process observing a long motion for up to observe.max_ms.
    bridge?.executor.close();
  };
  // Nobody reading progress (stderr closed) must not kill a run that is driving an arm: an
  // unhandled EPIPE is an uncaught error that would skip closing the ledger. Never removed: a
  // progress line already queued may still fail on its way out.
  let stderrGone = false;
  const onStderrError = (): void => {
    stderrGone = true;
  };
  io.stderr.on("error", onStderrError);
  const progress = (line: string): void => {
    if (!stderrGone) io.stderr.write(line);
  };
  try {
    const flags = parseBridgeFlags(argv, { transport: "optional" });
    const args = parseAgentArgs(flags.rest);
    const model = modelClient(args, io.env);
    if (flags.options.transport === undefined) parseBridgeFlags(argv, { transport: "required" });
    const transport = flags.options.transport;
    if (transport === undefined) throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: "no arm given" });

    const logger = createLogger({ level: io.env.ARMBRIDGE_LOG_LEVEL ?? "warn" });
    // Before the start: a signal while the arm link opens ends the run before its first turn.
    for (const s of AGENT_STOP_SIGNALS) process.once(s, onSignal);
    bridge = await Bridge.start({ config: flags.options.config, transport, dataDir: flags.options.dataDir, otherArm: flags.options.otherArm, logger, operatorSurface: AGENT_OPERATOR_SURFACE });
    for (const w of bridge.startupWarnings) progress(`armbridge agent: WARNING: ${w}\n`);
    const common = {
      bridge,
      instruction: args.instruction,
      images: args.images,
      maxTurns: args.maxTurns,
      deadlineMs: args.deadlineMs,
      transcriptPath: args.transcript,
      signal: interrupt.signal,
      onProgress: (line: string) => progress(`[agent] ${line}\n`),
    };
    let result: AgentResult;
    if (args.live) {
      const ai = createGoogleGenAI({ apiKey: apiKey(io.env), baseUrl: args.baseUrl, apiVersion: args.apiVersion });
      const streamCamera = args.streamCamera ? cameraFeed(bridge, args.streamCamera) : undefined;
      // Only a terminal: piped stdin is whatever a script feeds it, not a person talking to the model.
      const typed = io.stdin?.isTTY === true ? createInterface({ input: io.stdin, terminal: false }) : undefined;
      try {
        result = await runLiveAgent({
          ...common,
          ai,
          model: args.model,
          userTurns: typed,
          compression: args.compression,
          reconnect: { ...DEFAULT_RECONNECT_POLICY, attempts: args.reconnectAttempts },
          joinWindowMs: args.joinWindowMs,
          streamCamera,
        });
      } finally {
        typed?.close();
      }
    } else {
      const retry = { ...DEFAULT_MODEL_RETRY_POLICY, attempts: args.modelAttempts };
      result = await runAgent({ ...common, model: model ?? new GeminiModelClient({ apiKey: apiKey(io.env), baseUrl: args.baseUrl, apiVersion: args.apiVersion, model: args.model, retry }) });
    }
    for (const note of result.notes) progress(`[agent] note: ${note}\n`);
    for (const r of result.responses) {
      const out = resultOf(r.response);
      if (out.status === "unknown" && stoppedBy !== undefined && bridge.ledger.get(out.action_id)?.state === "started") {
        progress(`[agent] ${out.action_id} was in flight when ${stoppedBy} stopped the run: its row stays started and the next bridge start settles it from the arm\n`);
      } else if (out.status === "unknown") {
        progress(`[agent] ${out.action_id} is unknown: check the arm, then \`armbridge confirm ${out.action_id} --outcome reached|partial|not_moved --operator NAME\`\n`);
      }
    }
    const delivered = await writeLine(
      io.stdout,
      JSON.stringify({
        event: "agent_finished",
        ended: result.ended,
        ...(stoppedBy === undefined ? {} : { stopped_by: stoppedBy }),
        turns: result.turns,
        text: result.text,
        responses: result.responses.map((r) => ({ id: r.id, name: r.name, status: resultOf(r.response).status })),
        notes: result.notes,
        metrics: result.metrics,
      }) + "\n",
    );
    if (delivered !== true) {
      progress(`armbridge agent: the outcome line could not be written to stdout (${delivered}); the ledger has every call's result (armbridge actions)\n`);
      return 1;
    }
    return stoppedBy === undefined ? EXIT_BY_END[result.ended] : 128 + constants.signals[stoppedBy];
  } catch (error) {
    const e = asArmbridgeError(error);
    progress(`armbridge agent: ${e.code}: ${e.message}\n`);
    if (e.code === "ARMB_ERR_CLI_USAGE") progress("run `armbridge agent --help` for usage\n");
    return USAGE_CODES.has(e.code) ? 2 : 1;
  } finally {
    for (const s of AGENT_STOP_SIGNALS) process.removeListener(s, onSignal);
    await bridge?.close();
  }
}

/**
 * Writes `text` and says whether it reached the stream: true, or why not
 * (EPIPE: the reader went away). The error listener stays attached: a failed
 * write both calls back and emits 'error', and an 'error' nobody listens to
 * is an uncaught exception.
 */
function writeLine(stream: NodeJS.WritableStream, text: string): Promise<true | string> {
  return new Promise((resolve) => {
    const done = (outcome: true | string): void => {
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => done(`no reader took it within ${OUTCOME_WRITE_LIMIT_MS} ms`), OUTCOME_WRITE_LIMIT_MS);
    stream.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    stream.write(text, (error?: Error | null) => done(error ? ((error as NodeJS.ErrnoException).code ?? error.message) : true));
  });
}

/** --stream-camera: the bridge's camera, checked to exist before the session opens. */
function cameraFeed(bridge: Bridge, chosen: { readonly name: string; readonly fps: number }): CameraFeed {
  if (bridge.cameras.get(chosen.name) === undefined) {
    throw new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message: `--stream-camera ${JSON.stringify(chosen.name)}: no such camera; configured: ${bridge.cameras.names().join(", ") || "none"}` });
  }
  return {
    camera: chosen.name,
    fps: chosen.fps,
    grab: async (signal) => {
      const frame = await bridge.cameras.capture(chosen.name, signal);
      return { bytes: frame.bytes, mimeType: MIME_TYPES[frame.format] };
    },
  };
}

/** The replay client, or undefined for the API (checked for a key here, before any arm is touched). */
function modelClient(args: AgentArgs, env: NodeJS.ProcessEnv): ModelClient | undefined {
  if (args.model.startsWith("replay:")) return ReplayModelClient.fromFile(args.model.slice("replay:".length));
  apiKey(env);
  return undefined;
}

function apiKey(env: NodeJS.ProcessEnv): string {
  const key = env.GEMINI_API_KEY;
  if (key === undefined || key.trim() === "") throw new ArmbridgeError("ARMB_ERR_GEMINI_NO_KEY");
  return key;
}
