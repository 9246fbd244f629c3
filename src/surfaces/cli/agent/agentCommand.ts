import { constants } from "node:os";
import { createInterface } from "node:readline";
import { ArmbridgeError, asArmbridgeError, type ErrorCode } from "../../../errors.js";
import { resultOf } from "../../toFunctionResponse.js";
import { createLogger } from "../../../observability/logger.js";
import { EMBEDDED_CONSOLE_DEFAULT } from "../../runtime/startServing.js";
import { onStopSignals, type StopSignal } from "../../../commandLine/stopSignals.js";
import {
  BRIDGE_FLAG_NAMES,
  BRIDGE_FLAGS_HELP,
  parseBridgeFlags,
  type BridgeFlagOptions,
} from "../../runtime/bridgeFlags.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { parseHostPort } from "../serveCommand.js";
import { agentClient } from "../../gemini/agentClient.js";
import { openAgentBridge, type AgentTarget, type OpenedAgentBridge } from "./openAgentBridge.js";
import type { AgentEnd, AgentResult } from "../../gemini/AgentEvent.js";
import { DEFAULT_STREAM_FPS, STREAM_FPS_RANGE } from "../../gemini/CameraStreamer.js";
import {
  createGoogleGenAI,
  DEFAULT_GEMINI_LIVE_MODEL,
  DEFAULT_GEMINI_MODEL,
  GeminiModelClient,
} from "../../gemini/GeminiModelClient.js";
import type { ModelClient } from "../../gemini/ModelClient.js";
import { AGENT_FLAGS, parseAgentArgs, type AgentArgs } from "./parseAgentArgs.js";
import { ReplayModelClient } from "../../gemini/ReplayModelClient.js";
import { DEFAULT_RECONNECT_POLICY } from "../../gemini/ResumableLiveSession.js";
import { DEFAULT_MODEL_RETRY_POLICY } from "../../gemini/retryModelRequest.js";
import { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS, runAgent } from "../../gemini/runAgent.js";
import { runLiveAgent } from "../../gemini/runLiveAgent.js";
import { DEFAULT_JOIN_WINDOW_MS } from "../../gemini/UndeliveredMotions.js";

/** Every flag `agent` takes: its own and the bridge's. */
export const AGENT_FLAG_NAMES: readonly string[] = [...Object.keys(AGENT_FLAGS), ...BRIDGE_FLAG_NAMES];

export const AGENT_USAGE = `Usage: armbridge agent "<instruction>" --bridge URL [--token T] [flags]
       armbridge agent "<instruction>" (--serial LINK | --ros ...) [--http HOST:PORT] [flags]

Runs a Gemini agent on the arm: the model's function calls go through the
bridge (per-joint locks, timeouts settled by observation, the intent ledger).
Progress goes to stderr, one line per motion event; the outcome is one JSON
line on stdout: {"event":"agent_finished","ended":"answered"|"max_turns"|"deadline",...,"metrics":{...}}.

Flags:
Attached (--bridge URL): the calls go to a running \`armbridge serve\` over its
HTTP API; the arm, the ledger, the locks, approvals and the console stay
there, shared with every other agent and MCP client of that serve. This
process holds nothing that matters: killed mid-motion, serve settles the
motion as usual, and a run with the same call ids gets the recorded results.
  --bridge URL            the serve to attach to (its "http" in the ready line)
  --token T               serve's bearer token (default $ARMBRIDGE_TOKEN)
  --client NAME           the name this run is recorded under (default the model id);
                          each run also gets a session id of its own

Embedded (--serial LINK or --ros): a bridge of its own in this process, with
its own operator console (the same API and console as serve, HALT included),
whose URL and token are printed on stderr:
  --http HOST:PORT        where the console listens (default ${EMBEDDED_CONSOLE_DEFAULT}: loopback, a free port)
  --token T               the console's token (default $ARMBRIDGE_TOKEN, else a new one)

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
  -h, --help              this text

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

Approval gates (config approval) are answered in the console: serve's when
attached, this process's own when embedded.

Exit codes: 0 the model answered; 3 stopped at max turns or the deadline;
2 bad usage (including no GEMINI_API_KEY); 1 any other failure, stdout closed
before the outcome line could be written (EPIPE) included, and a serve lost
for good (ARMB_ERR_BRIDGE_LOST); 128+N stopped by signal N (130 SIGINT, 143
SIGTERM, 129 SIGHUP: a closed terminal), with "stopped_by" in the outcome
line. Embedded, a signal ends every wait at once, so a call in flight reads
unknown until the next start reconciles it; attached, serve ends the waits
and settles the motions by observation, as after any timeout. However it
ends, the arm link and the ledger (embedded) or the connection to serve
(attached) are closed; motions under way are not stopped.`;

/** How long the outcome line may wait for a reader that is not reading before it counts as undelivered. */
const OUTCOME_WRITE_LIMIT_MS = 10_000;

const EXIT_BY_END: Readonly<Record<AgentEnd, number>> = { answered: 0, max_turns: 3, deadline: 3 };
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set([
  "ARMB_ERR_CLI_USAGE",
  "ARMB_ERR_GEMINI_NO_KEY",
  "ARMB_ERR_GEMINI_REPLAY",
  "ARMB_ERR_CONFIG_READ",
  "ARMB_ERR_CONFIG_INVALID",
  "ARMB_ERR_APPROVAL_UNANSWERABLE",
]);

/** What the command line asks for, checked before anything is reached. */
interface AgentPlan {
  readonly args: AgentArgs;
  /** The replay client, or undefined for the API. */
  readonly model: ModelClient | undefined;
  readonly target: AgentTarget;
  readonly client: ReturnType<typeof agentClient>;
}

/** `armbridge agent`: exit code per AGENT_USAGE. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const progress = progressOn(io.stderr);
  let opened: OpenedAgentBridge | undefined;
  const interrupt = new AbortController();
  let stoppedBy: StopSignal | undefined;
  let stopListening: (() => void) | undefined;
  try {
    const plan = agentPlanOf(argv, io.env);
    const logger = createLogger({ level: io.env.ARMBRIDGE_LOG_LEVEL ?? "warn" });
    // Before the start: a signal while the arm link opens ends the run before its first turn.
    stopListening = onStopSignals((signal) => {
      stoppedBy ??= signal;
      interrupt.abort(signal);
      // Embedded, every wait ends now, observation too (as serve and mcp do): a call in flight answers
      // `unknown` and its row stays `started` for the next start to reconcile. Otherwise a closed
      // terminal would keep the process observing a long motion for up to observe.max_ms.
      opened?.stopWaits();
    }, "once");
    opened = await openAgentBridge(plan.target, plan.client, logger, (line) => progress(`${line}\n`));
    const result = await runModel(plan, opened, interrupt.signal, io, progress);
    adviseOnUnknowns(result, opened, stoppedBy, progress);
    const delivered = await writeLine(io.stdout, outcomeLine(result, plan, stoppedBy));
    if (delivered !== true) {
      progress(
        `armbridge agent: the outcome line could not be written to stdout (${delivered}); the ledger has every call's result (armbridge actions)\n`,
      );
      return 1;
    }
    return stoppedBy === undefined ? EXIT_BY_END[result.ended] : 128 + constants.signals[stoppedBy];
  } catch (error) {
    const e = asArmbridgeError(error);
    progress(`armbridge agent: ${e.code}: ${e.message}\n`);
    if (e.code === "ARMB_ERR_CLI_USAGE") progress("run `armbridge agent --help` for usage\n");
    return USAGE_CODES.has(e.code) ? 2 : 1;
  } finally {
    stopListening?.();
    await opened?.close();
  }
}

/**
 * Progress lines on stderr while anyone reads them. Nobody reading (stderr
 * closed) must not kill a run that is driving an arm: an unhandled EPIPE is
 * an uncaught error that would skip closing the ledger. The listener is never
 * removed: a progress line already queued may still fail on its way out.
 */
function progressOn(stderr: NodeJS.WritableStream): (line: string) => void {
  let stderrGone = false;
  stderr.on("error", () => {
    stderrGone = true;
  });
  return (line) => {
    if (!stderrGone) stderr.write(line);
  };
}

function agentPlanOf(argv: readonly string[], env: NodeJS.ProcessEnv): AgentPlan {
  const flags = parseBridgeFlags(argv, { transport: "optional" });
  const args = parseAgentArgs(flags.rest);
  const model = modelClient(args, env);
  const target = agentTarget(args, flags.options, argv, env);
  return { args, model, target, client: agentClient({ model: args.model, name: args.clientName }) };
}

/** The model loop the flags chose (Live, or unary with retries) on the opened bridge. */
async function runModel(
  plan: AgentPlan,
  opened: OpenedAgentBridge,
  signal: AbortSignal,
  io: CliIo,
  progress: (line: string) => void,
): Promise<AgentResult> {
  const { args } = plan;
  const common = {
    bridge: opened.bridge,
    instruction: args.instruction,
    images: args.images,
    maxTurns: args.maxTurns,
    deadlineMs: args.deadlineMs,
    transcriptPath: args.transcript,
    signal,
    onProgress: (line: string) => progress(`[agent] ${line}\n`),
  };
  if (!args.live) {
    const retry = { ...DEFAULT_MODEL_RETRY_POLICY, attempts: args.modelAttempts };
    const model =
      plan.model ??
      new GeminiModelClient({
        apiKey: apiKey(io.env),
        baseUrl: args.baseUrl,
        apiVersion: args.apiVersion,
        model: args.model,
        retry,
      });
    return runAgent({ ...common, model });
  }
  const ai = createGoogleGenAI({ apiKey: apiKey(io.env), baseUrl: args.baseUrl, apiVersion: args.apiVersion });
  const streamCamera = args.streamCamera ? opened.cameraFeed(args.streamCamera) : undefined;
  // Only a terminal: piped stdin is whatever a script feeds it, not a person talking to the model.
  const typed = io.stdin?.isTTY === true ? createInterface({ input: io.stdin, terminal: false }) : undefined;
  try {
    return await runLiveAgent({
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
}

/** The run's notes, and for each unknown result where to confirm it. */
function adviseOnUnknowns(
  result: AgentResult,
  opened: OpenedAgentBridge,
  stoppedBy: StopSignal | undefined,
  progress: (line: string) => void,
): void {
  for (const note of result.notes) progress(`[agent] note: ${note}\n`);
  for (const r of result.responses) {
    const out = resultOf(r.response);
    // An unconfirmed halt is unknown with no action of its own: nothing to confirm.
    if (out.status === "unknown" && out.action_id !== undefined)
      progress(`[agent] ${opened.unknownAdvice(out.action_id, stoppedBy)}\n`);
  }
}

/** The outcome, one JSON line for stdout. */
function outcomeLine(result: AgentResult, plan: AgentPlan, stoppedBy: StopSignal | undefined): string {
  return (
    JSON.stringify({
      event: "agent_finished",
      ended: result.ended,
      ...(stoppedBy === undefined ? {} : { stopped_by: stoppedBy }),
      turns: result.turns,
      client: plan.client,
      ...(plan.target.kind === "attached" ? { bridge: plan.target.url } : {}),
      text: result.text,
      responses: result.responses.map((r) => ({ id: r.id, name: r.name, status: resultOf(r.response).status })),
      notes: result.notes,
      metrics: result.metrics,
    }) + "\n"
  );
}

const EMBEDDED_ONLY = [
  "--serial",
  "--ros",
  "--ros-args",
  "--params-file",
  "--config",
  "--data",
  "--adopt-ledger",
] as const;

/**
 * Attached to a serve (--bridge), or embedded with a console of its own.
 * Flags of the other mode are refused by name, and a missing arm or token is
 * said before anything is reached.
 */
function agentTarget(
  args: AgentArgs,
  flags: BridgeFlagOptions<BridgeFlagOptions["transport"] | undefined>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): AgentTarget {
  const token = args.token ?? (env.ARMBRIDGE_TOKEN || undefined);
  if (args.bridgeUrl !== undefined) {
    const given = EMBEDDED_ONLY.filter((f) => argv.some((a) => a === f || a.startsWith(`${f}=`)));
    if (given.length > 0)
      throw usage(
        `--bridge attaches to a running serve, which owns the arm, its config and its ledger: drop ${given.join(", ")}`,
      );
    if (args.http !== undefined)
      throw usage("--http serves an embedded bridge's console; attached (--bridge), the console is serve's own");
    // serve's API has no camera stream; a frame a second through /v1/calls would fill its ledger.
    if (args.streamCamera !== undefined)
      throw usage(
        "--stream-camera streams a camera of an embedded bridge (--serial or --ros); attached (--bridge), the model can still call get_camera_image",
      );
    if (!/^https?:\/\/[^/]+/.test(args.bridgeUrl))
      throw usage(
        `--bridge must be the http(s) URL of a running serve, like http://127.0.0.1:8640 (got ${JSON.stringify(args.bridgeUrl)})`,
      );
    if (!token)
      throw usage(
        "--bridge needs serve's token: --token T or ARMBRIDGE_TOKEN (serve prints it at start, and its console link ends in #token=...)",
      );
    return { kind: "attached", url: args.bridgeUrl, token };
  }
  if (flags.transport === undefined)
    throw usage(
      "no arm given: attach to a running serve with --bridge URL, or drive an arm of its own with --serial LINK (a device path or tcp://HOST:PORT) or --ros",
    );
  const { host, port } = parseHostPort(args.http ?? EMBEDDED_CONSOLE_DEFAULT);
  if (token !== undefined && token.length === 0) throw usage("--token must not be empty");
  return { kind: "embedded", flags: { ...flags, transport: flags.transport }, host, port, token };
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
    const timer = setTimeout(
      () => done(`no reader took it within ${OUTCOME_WRITE_LIMIT_MS} ms`),
      OUTCOME_WRITE_LIMIT_MS,
    );
    stream.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    stream.write(text, (error?: Error | null) =>
      done(error ? ((error as NodeJS.ErrnoException).code ?? error.message) : true),
    );
  });
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

function usage(message: string): ArmbridgeError {
  return new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message });
}
