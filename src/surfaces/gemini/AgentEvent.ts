import type { ExecutorEvent } from "../../bridge/BridgePort.js";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { AgentMetrics } from "./AgentMetrics.js";
import type { IdentifiedCall } from "./GeminiToolAdapter.js";
import type { ModelLinkEvent } from "./ModelLinkEvent.js";
import type { MissCause } from "./UndeliveredMotions.js";

/** How a run ended: the model answered, or we stopped it. */
export type AgentEnd = "answered" | "max_turns" | "deadline";

/** What an agent run reports as it goes (progress lines, the demo's narrative). */
export type AgentEvent =
  | {
      readonly type: "model_turn";
      readonly turn: number;
      readonly calls: readonly IdentifiedCall[];
      readonly text: string;
      readonly note?: string | undefined;
    }
  | { readonly type: "call"; readonly event: ExecutorEvent }
  | { readonly type: "responses"; readonly turn: number; readonly responses: readonly FunctionResponse[] }
  /** Live: the server cancelled these calls; our wait for them ended (their motions were not stopped). */
  | { readonly type: "cancelled"; readonly callIds: readonly string[] }
  /** Live: a turn interrupted these calls while they ran; our wait ended (their motions were not stopped). */
  | { readonly type: "interrupted"; readonly callIds: readonly string[] }
  /** Live: a cancelled or interrupted call's result, settled as usual; the model hears of it by a join or a note, not a response. */
  | { readonly type: "cancelled_settled"; readonly cause: MissCause; readonly response: FunctionResponse }
  /** Live: this call repeats a motion whose result never reached the model, and joins it instead of moving again. */
  | { readonly type: "joined"; readonly call: IdentifiedCall; readonly joinedCallId: string }
  /** Live: the model was told, in a user note, the outcomes of these calls it never received. */
  | { readonly type: "missed_told"; readonly callIds: readonly string[] }
  /** Live: a later user turn went into the session. */
  | { readonly type: "user_turn"; readonly text: string }
  /** The way to the model: a unary request retried, a Live connection lost and replaced. */
  | { readonly type: "link"; readonly event: ModelLinkEvent }
  | { readonly type: "ended"; readonly ended: AgentEnd; readonly text: string; readonly turns: number };

export interface AgentResult {
  readonly ended: AgentEnd;
  /** The model's last text (its answer when `ended` is "answered"). */
  readonly text: string;
  /** Model turns taken. */
  readonly turns: number;
  /** Every function response sent back, in order. */
  readonly responses: readonly FunctionResponse[];
  /** Things a person should know (scripted expectations that were missed). */
  readonly notes: readonly string[];
  /** Model request latency, retries, reconnects, joined repeats. */
  readonly metrics: AgentMetrics;
}

export type ProgressListener = (line: string, event: AgentEvent) => void;
