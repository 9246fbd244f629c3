import { GoogleGenAI, type Content } from "@google/genai";
import { ArmbridgeError } from "../../errors.js";
import { turnFromContent, type ModelClient, type ModelRequest, type ModelTurn } from "./ModelClient.js";

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
  return new GoogleGenAI({ apiKey: connection.apiKey, ...(Object.keys(httpOptions).length > 0 ? { httpOptions } : {}) });
}

/**
 * Model turns from the Gemini API (`models.generateContent`). Automatic
 * function calling stays off: the SDK would otherwise be free to call tools
 * itself, and every call must go through the executor.
 */
export class GeminiModelClient implements ModelClient {
  readonly model: string;
  readonly #ai: GoogleGenAI;

  constructor(options: GeminiConnection & { readonly model?: string | undefined; readonly ai?: GoogleGenAI | undefined }) {
    this.model = options.model ?? DEFAULT_GEMINI_MODEL;
    this.#ai = options.ai ?? createGoogleGenAI(options);
  }

  async generate(request: ModelRequest): Promise<ModelTurn> {
    let content: Content | undefined;
    try {
      const response = await this.#ai.models.generateContent({
        model: this.model,
        contents: [...request.contents],
        config: {
          tools: [...request.tools],
          systemInstruction: request.systemInstruction,
          automaticFunctionCalling: { disable: true },
          abortSignal: request.signal,
        },
      });
      content = response.candidates?.[0]?.content;
      if (!content?.parts?.length) {
        const why = response.promptFeedback?.blockReason ?? response.candidates?.[0]?.finishReason ?? "no candidate content";
        throw new ArmbridgeError("ARMB_ERR_GEMINI_API", { reason: `the model returned no content (${why})` });
      }
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      if (error instanceof ArmbridgeError) throw error;
      throw new ArmbridgeError("ARMB_ERR_GEMINI_API", { reason: error instanceof Error ? error.message : String(error) }, { cause: error });
    }
    return turnFromContent({ ...content, role: content.role ?? "model" });
  }
}
