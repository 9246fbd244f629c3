import { GoogleGenAI, type Content } from "@google/genai";
import { ArmbridgeError } from "../../errors.js";
import { turnFromContent, type ModelClient, type ModelRequest, type ModelTurn } from "./ModelClient.js";
import {
  DEFAULT_MODEL_RETRY_POLICY,
  retryModelRequest,
  type ModelRetryPolicy,
  type RequestCapture,
} from "./retryModelRequest.js";

/**
 * The current Gemini Robotics-ER models, per Google's robotics overview
 * (https://ai.google.dev/gemini-api/docs/robotics-overview, "Models": ER 1.6
 * was retired on 2026-08-31): the standard endpoint, and the one "optimized
 * for real-time streaming with the Live API". Override with `--model`.
 */
export const DEFAULT_GEMINI_MODEL = "gemini-robotics-er-2-preview";
export const DEFAULT_GEMINI_LIVE_MODEL = "gemini-robotics-er-2-streaming-preview";

export interface GeminiConnection {
  readonly apiKey: string;
  /** Another endpoint (a proxy, or a local test server): the SDK's `httpOptions.baseUrl`. */
  readonly baseUrl?: string | undefined;
  /** The SDK's `httpOptions.apiVersion` (default v1beta). */
  readonly apiVersion?: string | undefined;
}

/** One SDK client for unary and Live use alike. */
export function createGoogleGenAI(connection: GeminiConnection): GoogleGenAI {
  const httpOptions = {
    ...(connection.baseUrl === undefined ? {} : { baseUrl: connection.baseUrl }),
    ...(connection.apiVersion === undefined ? {} : { apiVersion: connection.apiVersion }),
  };
  return new GoogleGenAI({
    apiKey: connection.apiKey,
    ...(Object.keys(httpOptions).length > 0 ? { httpOptions } : {}),
  });
}

/**
 * Model turns from the Gemini API (`models.generateContent`). Automatic
 * function calling stays off: the SDK would otherwise be free to call tools
 * itself, and every call must go through the executor. Transient failures
 * are retried by `retryModelRequest` (the SDK's own retries stay off).
 */
export class GeminiModelClient implements ModelClient {
  readonly model: string;
  readonly #ai: GoogleGenAI;
  readonly #retry: ModelRetryPolicy;
  readonly #endpoint: string;

  constructor(
    options: GeminiConnection & {
      readonly model?: string | undefined;
      readonly ai?: GoogleGenAI | undefined;
      readonly retry?: ModelRetryPolicy | undefined;
    },
  ) {
    this.model = options.model ?? DEFAULT_GEMINI_MODEL;
    this.#ai = options.ai ?? createGoogleGenAI(options);
    this.#retry = options.retry ?? DEFAULT_MODEL_RETRY_POLICY;
    this.#endpoint = `generateContent of ${this.model} at ${options.baseUrl ?? "https://generativelanguage.googleapis.com"}`;
  }

  async generate(request: ModelRequest): Promise<ModelTurn> {
    const content = await retryModelRequest((signal, capture) => this.#attempt(request, signal, capture), {
      signal: request.signal,
      deadlineAt: request.deadlineAt,
      policy: this.#retry,
      endpoint: this.#endpoint,
      onRetry: request.onRetry,
    });
    return turnFromContent({ ...content, role: content.role ?? "model" });
  }

  async #attempt(request: ModelRequest, signal: AbortSignal, capture: RequestCapture): Promise<Content> {
    const response = await this.#ai.models.generateContent({
      model: this.model,
      contents: [...request.contents],
      config: {
        tools: [...request.tools],
        systemInstruction: request.systemInstruction,
        automaticFunctionCalling: { disable: true },
        abortSignal: signal,
        // The SDK keeps only the status and body of a failed response; Retry-After is a header, so look at the response on its way.
        httpOptions: { fetch: capturingFetch(capture) },
      },
    });
    const content = response.candidates?.[0]?.content;
    if (!content?.parts?.length) {
      const why =
        response.promptFeedback?.blockReason ?? response.candidates?.[0]?.finishReason ?? "no candidate content";
      throw new ArmbridgeError("ARMB_ERR_GEMINI_API", { reason: `the model returned no content (${why})` });
    }
    return content;
  }
}

/** fetch, noting the request's method and URL (without its query) and the response's status and Retry-After. */
function capturingFetch(capture: RequestCapture): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    capture.endpoint = `${init?.method ?? "GET"} ${url.split("?")[0] ?? url}`;
    const response = await fetch(input, init);
    capture.response = { status: response.status, retryAfter: response.headers.get("retry-after") };
    return response;
  };
}
