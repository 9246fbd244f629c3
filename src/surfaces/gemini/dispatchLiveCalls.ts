import type { FunctionResponse } from "../toFunctionResponse.js";
import type { GeminiToolAdapter, IdentifiedCall } from "./GeminiToolAdapter.js";
import type { UndeliveredMotion, UndeliveredMotions } from "./UndeliveredMotions.js";

/** One call of a Live toolCall, on its way. */
export interface DispatchedCall {
  readonly call: IdentifiedCall;
  /** Ends the executor's wait for this call (cancellation, interruption): a motion under way goes on and is settled by observation. */
  readonly controller: AbortController;
  /** Settles when the executor settles the call (it always does), or with the joined motion's outcome. */
  readonly response: Promise<FunctionResponse>;
  /** The undelivered motion this call repeats, joined instead of moving again. */
  readonly joined: UndeliveredMotion | undefined;
}

export interface DispatchLiveCallsOptions {
  readonly adapter: GeminiToolAdapter;
  readonly undelivered: UndeliveredMotions;
  readonly deadlineAt: number;
  readonly signal: AbortSignal;
}

/**
 * Sends one toolCall's calls on their way: a repeat of an undelivered motion
 * (same tool, same parsed arguments, any id) that comes before any new
 * motion request joins it (`repeatsIn`); every other call goes
 * to the executor, all in this tick and in the model's order, each under its
 * own signal (`respondEach`). Calls repeating an id share one controller, so
 * the executor sees them together and rejects the duplicate as in a batch.
 */
export function dispatchLiveCalls(
  calls: readonly IdentifiedCall[],
  options: DispatchLiveCallsOptions,
): DispatchedCall[] {
  const controllers = new Map<string, AbortController>();
  for (const c of calls) if (!controllers.has(c.id)) controllers.set(c.id, new AbortController());
  const controllerOf = (id: string): AbortController => controllers.get(id) as AbortController;
  const repeats = options.undelivered.repeatsIn(calls);
  const fresh = calls.filter((_, i) => repeats[i] === undefined);
  const freshResponses = options.adapter.respondEach(fresh, {
    deadlineMs: Math.max(0, options.deadlineAt - Date.now()),
    signal: options.signal,
    signalFor: (id) => controllerOf(id).signal,
  });
  let k = 0;
  return calls.map((call, i) => {
    const motion = repeats[i];
    const response =
      motion === undefined
        ? (freshResponses[k++] as Promise<FunctionResponse>)
        : options.undelivered.join(call, motion);
    return { call, controller: controllerOf(call.id), response, joined: motion };
  });
}
