import type { ExecutorEvent } from "../../executor/Executor.js";
import type { FunctionResponse } from "../toFunctionResponse.js";
import type { IdentifiedCall } from "./GeminiToolAdapter.js";

/** How a run ended: the model answered, or we stopped it. */
export type AgentEnd = "answered" | "max_turns" | "deadline";

/** What an agent run reports as it goes (progress lines, the demo's narrative). */
export type AgentEvent =
  | { readonly type: "model_turn"; readonly turn: number; readonly calls: readonly IdentifiedCall[]; readonly text: string; readonly note?: string | undefined }
  | { readonly type: "call"; readonly event: ExecutorEvent }
  | { readonly type: "responses"; readonly turn: number; readonly responses: readonly FunctionResponse[] }
  /** Live: the server cancelled these calls; our wait for them ended (their motions were not stopped). */
  | { readonly type: "cancelled"; readonly callIds: readonly string[] }
  /** Live: a cancelled call's result, settled as usual, kept out of the conversation. */
  | { readonly type: "cancelled_settled"; readonly response: FunctionResponse }
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
}

export type ProgressListener = (line: string, event: AgentEvent) => void;
