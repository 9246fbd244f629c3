import { parseFlags } from "../../../commandLine/parseFlags.js";
import { ArmbridgeError } from "../../../errors.js";
import { DEFAULT_STREAM_FPS, STREAM_FPS_RANGE } from "../../gemini/CameraStreamer.js";
import { DEFAULT_GEMINI_LIVE_MODEL, DEFAULT_GEMINI_MODEL } from "../../gemini/GeminiModelClient.js";
import { DEFAULT_CONTEXT_COMPRESSION, type ContextCompression } from "../../gemini/liveConnectConfig.js";
import { DEFAULT_RECONNECT_POLICY } from "../../gemini/ResumableLiveSession.js";
import { DEFAULT_MODEL_RETRY_POLICY } from "../../gemini/retryModelRequest.js";
import { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS } from "../../gemini/runAgent.js";
import { DEFAULT_JOIN_WINDOW_MS } from "../../gemini/UndeliveredMotions.js";

/** `armbridge agent`'s own flags (the arm's are parseBridgeFlags'). */
export interface AgentArgs {
  readonly instruction: string;
  readonly model: string;
  readonly live: boolean;
  readonly maxTurns: number;
  readonly deadlineMs: number;
  readonly images: string[];
  readonly transcript: string | undefined;
  readonly baseUrl: string | undefined;
  readonly apiVersion: string | undefined;
  /** Unary: attempts per model request (1 never retries). */
  readonly modelAttempts: number;
  /** Live: context window compression. */
  readonly compression: ContextCompression;
  /** Live: failed connection attempts in a row before the run fails. */
  readonly reconnectAttempts: number;
  /** Live: how long after settling an undelivered motion still joins a repeat. */
  readonly joinWindowMs: number;
  /** Live: a camera streamed as realtime video input. */
  readonly streamCamera: { readonly name: string; readonly fps: number } | undefined;
  /** --bridge URL: attach to a running serve. */
  readonly bridgeUrl: string | undefined;
  /** serve's token (attached) or the embedded console's. */
  readonly token: string | undefined;
  /** Embedded: where the console listens. */
  readonly http: string | undefined;
  /** The name this run's calls are recorded under. */
  readonly clientName: string | undefined;
}

/** The agent's own flags (the bridge flags are taken first); its help names each. */
export const AGENT_FLAGS = {
  model: { type: "string" },
  live: { type: "boolean" },
  "max-turns": { type: "string" },
  "deadline-ms": { type: "string" },
  image: { type: "string", multiple: true },
  transcript: { type: "string" },
  "base-url": { type: "string" },
  "api-version": { type: "string" },
  "model-attempts": { type: "string" },
  "context-compression": { type: "string" },
  "compression-trigger-tokens": { type: "string" },
  "compression-target-tokens": { type: "string" },
  "reconnect-attempts": { type: "string" },
  "join-window-ms": { type: "string" },
  "stream-camera": { type: "string" },
  fps: { type: "string" },
  bridge: { type: "string" },
  token: { type: "string" },
  http: { type: "string" },
  client: { type: "string" },
} as const;

/** Flags that only a Live session uses. */
const LIVE_ONLY = [
  "context-compression",
  "compression-trigger-tokens",
  "compression-target-tokens",
  "reconnect-attempts",
  "join-window-ms",
  "stream-camera",
  "fps",
] as const;

export function parseAgentArgs(rest: readonly string[]): AgentArgs {
  const parsed = parseFlags(rest, AGENT_FLAGS, "positionals");
  if (!parsed.ok) throw usage(parsed.message);
  const v = parsed.values;
  if (parsed.positionals.length !== 1 || parsed.positionals[0]?.trim() === "") {
    throw usage(
      parsed.positionals.length === 0
        ? 'give the instruction, e.g. armbridge agent "wave the wrist" --serial tcp://127.0.0.1:7000'
        : `give the instruction as one quoted argument (got ${parsed.positionals.length}: ${parsed.positionals.map((p) => JSON.stringify(p)).join(" ")})`,
    );
  }
  const live = v.live === true;
  const model = v.model ?? (live ? DEFAULT_GEMINI_LIVE_MODEL : DEFAULT_GEMINI_MODEL);
  if (model === "" || model === "replay:") throw usage("--model needs a model id or replay:FILE");
  if (live && model.startsWith("replay:"))
    throw usage(
      "--live needs a Live API session; replay:FILE replays the unary loop only, so drop --live or give a model id",
    );
  if (v["base-url"] !== undefined && !/^https?:\/\//.test(v["base-url"]))
    throw usage(`--base-url ${JSON.stringify(v["base-url"])} must be an http:// or https:// URL`);
  if (!live) {
    const given = LIVE_ONLY.filter((f) => v[f] !== undefined);
    if (given.length > 0) throw usage(`--${given[0]} applies to Live sessions only: add --live`);
  } else if (v["model-attempts"] !== undefined) {
    throw usage(
      "--model-attempts applies to generateContent requests (without --live); a Live session's reconnects are bounded by --reconnect-attempts",
    );
  }
  if (v.fps !== undefined && v["stream-camera"] === undefined)
    throw usage("--fps sets the rate of --stream-camera NAME: give the camera too");
  if (v["stream-camera"] !== undefined && v["stream-camera"].trim() === "")
    throw usage("--stream-camera needs a camera name (config cameras[].name)");
  return {
    instruction: parsed.positionals[0] as string,
    model,
    live,
    maxTurns: positiveInt("--max-turns", v["max-turns"], DEFAULT_MAX_TURNS, 1000),
    deadlineMs: positiveInt("--deadline-ms", v["deadline-ms"], DEFAULT_AGENT_DEADLINE_MS, 86_400_000),
    images: v.image ?? [],
    transcript: v.transcript,
    baseUrl: v["base-url"],
    apiVersion: v["api-version"],
    modelAttempts: positiveInt("--model-attempts", v["model-attempts"], DEFAULT_MODEL_RETRY_POLICY.attempts, 100),
    compression: compression(v["context-compression"], v["compression-trigger-tokens"], v["compression-target-tokens"]),
    reconnectAttempts: positiveInt(
      "--reconnect-attempts",
      v["reconnect-attempts"],
      DEFAULT_RECONNECT_POLICY.attempts,
      1000,
    ),
    joinWindowMs: positiveInt("--join-window-ms", v["join-window-ms"], DEFAULT_JOIN_WINDOW_MS, 86_400_000),
    streamCamera: v["stream-camera"] === undefined ? undefined : { name: v["stream-camera"], fps: fps(v.fps) },
    bridgeUrl: v.bridge,
    token: v.token,
    http: v.http,
    clientName: v.client,
  };
}

function compression(
  mode: string | undefined,
  trigger: string | undefined,
  target: string | undefined,
): ContextCompression {
  if (mode !== undefined && mode !== "on" && mode !== "off")
    throw usage(`--context-compression ${JSON.stringify(mode)} must be on or off`);
  if (mode === "off") {
    if (trigger !== undefined || target !== undefined)
      throw usage("--compression-trigger-tokens and --compression-target-tokens need --context-compression on");
    return { mode: "off" };
  }
  const triggerTokens =
    trigger === undefined ? undefined : positiveInt("--compression-trigger-tokens", trigger, 0, 10_000_000);
  const targetTokens =
    target === undefined ? undefined : positiveInt("--compression-target-tokens", target, 0, 10_000_000);
  if (triggerTokens !== undefined && targetTokens !== undefined && targetTokens >= triggerTokens) {
    throw usage(
      `--compression-target-tokens ${targetTokens} must be below --compression-trigger-tokens ${triggerTokens} (the window shrinks to the target once the trigger is reached)`,
    );
  }
  return triggerTokens === undefined && targetTokens === undefined
    ? DEFAULT_CONTEXT_COMPRESSION
    : { mode: "sliding_window", triggerTokens, targetTokens };
}

function fps(text: string | undefined): number {
  if (text === undefined) return DEFAULT_STREAM_FPS;
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(n >= STREAM_FPS_RANGE.min && n <= STREAM_FPS_RANGE.max))
    throw usage(`--fps ${JSON.stringify(text)} must be a number in ${STREAM_FPS_RANGE.min}..${STREAM_FPS_RANGE.max}`);
  return n;
}

function positiveInt(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    throw usage(`${flag} ${JSON.stringify(text)} must be an integer in 1..${max}`);
  return n;
}

function usage(message: string): ArmbridgeError {
  return new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message });
}
