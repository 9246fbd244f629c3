import type { Content, FunctionCall as GeminiFunctionCall, Tool } from "@google/genai";
import type { CallStatus } from "../../bridge/BridgePort.js";
import type { ModelRetry } from "./retryModelRequest.js";

/** What the agent loop asks a model for: the whole conversation so far. */
export interface ModelRequest {
  readonly contents: readonly Content[];
  readonly tools: readonly Tool[];
  readonly systemInstruction: string;
  /** The run deadline: a model call still pending when it fires is abandoned. */
  readonly signal: AbortSignal;
  /** Epoch ms of the run deadline: a client that retries starts no wait that would end after it. */
  readonly deadlineAt?: number | undefined;
  /** Told of each retry of this request (transcript, progress). */
  readonly onRetry?: ((retry: ModelRetry) => void) | undefined;
}

/** One model turn, as the loop uses it. */
export interface ModelTurn {
  /** The model's content exactly as received, appended to the history unchanged (thought signatures included). */
  readonly content: Content;
  /** Its function calls, in part order. */
  readonly calls: readonly GeminiFunctionCall[];
  /** Its text parts (thoughts excluded), joined. */
  readonly text: string;
  /** Scripted sessions only: the run deadline this turn's calls get, if shorter than what is left. */
  readonly deadlineMs?: number | undefined;
  /** Scripted sessions only: what this turn is meant to show, for people reading the progress. */
  readonly note?: string | undefined;
  /** Scripted sessions only: the status each call (by id) is expected to end with. */
  readonly expect?: Readonly<Record<string, CallStatus>> | undefined;
}

/**
 * Where model turns come from: the Gemini API (`GeminiModelClient`) or a
 * recorded session (`ReplayModelClient`). The loop is the same for both.
 */
export interface ModelClient {
  /** The model id (or `replay:FILE`), for transcripts and progress. */
  readonly model: string;
  generate(request: ModelRequest): Promise<ModelTurn>;
}

/** Reads calls and text out of a model `Content`, the way `GenerateContentResponse.functionCalls` / `.text` do. */
export function turnFromContent(
  content: Content,
  extras: Pick<ModelTurn, "deadlineMs" | "note" | "expect"> = {},
): ModelTurn {
  const parts = content.parts ?? [];
  const calls = parts.flatMap((p) => (p.functionCall ? [p.functionCall] : []));
  const text = parts
    .filter((p) => typeof p.text === "string" && p.thought !== true)
    .map((p) => p.text)
    .join("");
  return { content, calls, text, ...extras };
}
