import { Modality, type LiveConnectConfig, type Tool } from "@google/genai";

/**
 * Context window compression for a Live session. Without it the Live API
 * ends a session once its context fills — about 15 minutes of audio, about
 * 2 minutes with video — and with it sessions may run indefinitely
 * (https://ai.google.dev/gemini-api/docs/live-session, "Session lifetime",
 * "Context window compression"). The sliding window keeps the newest turns,
 * cut at the start of a user turn; the system instruction always stays
 * (@google/genai `SlidingWindow`).
 */
export type ContextCompression =
  | { readonly mode: "off" }
  | {
      readonly mode: "sliding_window";
      /** Context size (tokens) that triggers compression; unset: the server's default. */
      readonly triggerTokens?: number | undefined;
      /** Tokens to keep after compressing; unset: half the trigger (the server's default). Must be below the trigger. */
      readonly targetTokens?: number | undefined;
    };

export const DEFAULT_CONTEXT_COMPRESSION: ContextCompression = { mode: "sliding_window" };

export interface LiveSetup {
  readonly tools: readonly Tool[];
  readonly systemInstruction: string;
  readonly compression: ContextCompression;
}

/**
 * The `setup` of one Live connection (@google/genai 2.32 `LiveConnectConfig`,
 * sent as BidiGenerateContentSetup). `sessionResumption` is always present:
 * with it the server sends `sessionResumptionUpdate {newHandle, resumable}`
 * messages, and a later connection passing the newest handle continues the
 * same session (handles stay valid for 2 hours after the session's last
 * connection ended — ai.google.dev/gemini-api/docs/live-session, "Session
 * resumption"). `transparent` is not set: the SDK refuses it outside Vertex
 * ("transparent parameter is only supported in Gemini Enterprise Agent
 * Platform mode").
 */
export function liveConnectConfig(setup: LiveSetup, handle: string | undefined): LiveConnectConfig {
  const c = setup.compression;
  return {
    responseModalities: [Modality.TEXT],
    tools: [...setup.tools],
    systemInstruction: setup.systemInstruction,
    sessionResumption: handle === undefined ? {} : { handle },
    ...(c.mode === "off"
      ? {}
      : {
          contextWindowCompression: {
            // int64 fields travel as strings in the JSON mapping, as the SDK types them.
            ...(c.triggerTokens === undefined ? {} : { triggerTokens: String(c.triggerTokens) }),
            slidingWindow: c.targetTokens === undefined ? {} : { targetTokens: String(c.targetTokens) },
          },
        }),
  };
}
