import type { ActionRow } from "../ledger/ActionRow.js";
import type { CallResult } from "./CallResult.js";

/** What the executor reports as calls move along (console, narrative, Live progress). */
export type ExecutorEvent =
  | { readonly type: "queued"; readonly callId: string; readonly tool: string; readonly resources: readonly string[] }
  | { readonly type: "started"; readonly callId: string; readonly tool: string; readonly actionId: string; readonly resources: readonly string[]; readonly budgetMs: number }
  | { readonly type: "timed_out"; readonly callId: string; readonly tool: string; readonly actionId: string }
  | { readonly type: "settled"; readonly callId: string; readonly tool: string; readonly result: CallResult; readonly durationMs: number }
  | { readonly type: "action_resolved"; readonly row: ActionRow };
