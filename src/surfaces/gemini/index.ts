export type { AgentEnd, AgentEvent, AgentResult, ProgressListener } from "./AgentEvent.js";
export { describeAgentEvent } from "./describeAgentEvent.js";
export {
  createGoogleGenAI,
  DEFAULT_GEMINI_LIVE_MODEL,
  DEFAULT_GEMINI_MODEL,
  GeminiModelClient,
  type GeminiConnection,
} from "./GeminiModelClient.js";
export {
  GeminiToolAdapter,
  identifyCalls,
  type CallExecutor,
  type IdentifiedCall,
  type RespondOptions,
} from "./GeminiToolAdapter.js";
export { geminiTools, UNARY_BLOCKING_NOTE, type GeminiEndpoint } from "./geminiTools.js";
export type { ModelClient, ModelRequest, ModelTurn } from "./ModelClient.js";
export { progressLine } from "./progressLine.js";
export { ReplayModelClient } from "./ReplayModelClient.js";
export { DEFAULT_AGENT_DEADLINE_MS, DEFAULT_MAX_TURNS, runAgent, type RunAgentOptions } from "./runAgent.js";
export { runLiveAgent, type RunLiveAgentOptions } from "./runLiveAgent.js";
export { AGENT_SYSTEM_INSTRUCTION } from "./systemInstruction.js";
export type { AgentMetrics, LatencySummary } from "./AgentMetrics.js";
export {
  describeModelLinkEvent,
  type LinkLossCause,
  type ModelLinkEvent,
  type SessionStart,
} from "./ModelLinkEvent.js";
export {
  DEFAULT_MODEL_RETRY_POLICY,
  retryModelRequest,
  type ModelRetry,
  type ModelRetryPolicy,
} from "./retryModelRequest.js";
export { DEFAULT_RECONNECT_POLICY, type ReconnectPolicy } from "./ResumableLiveSession.js";
export { DEFAULT_CONTEXT_COMPRESSION, type ContextCompression } from "./liveConnectConfig.js";
export { DEFAULT_JOIN_WINDOW_MS } from "./UndeliveredMotions.js";
export { DEFAULT_STREAM_FPS, STREAM_FPS_RANGE, type CameraFeed } from "./CameraStreamer.js";
