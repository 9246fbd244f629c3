import { randomBytes } from "node:crypto";
import type { FunctionCall as GeminiFunctionCall } from "@google/genai";
import { ImageBudget } from "../../cameras/ImageBudget.js";
import type { BridgePort, FunctionCall } from "../../bridge/BridgePort.js";
import { toFunctionResponse, type FunctionResponse } from "../toFunctionResponse.js";

/** A model's function call once it is sure to have an id. */
export interface IdentifiedCall {
  readonly id: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>> | undefined;
  /** True when the model sent no id and we gave it one (the response carries it). */
  readonly idAssigned: boolean;
}

export type CallExecutor = Pick<BridgePort, "execute">;

export interface RespondOptions {
  /** The run deadline, in ms from now, that every call of the turn inherits. */
  readonly deadlineMs: number;
  /** Ends our waiting for the whole turn; motions are never stopped by it. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Gives every call an id. Gemini sends ids (and Live requires them back), but
 * older models and hand-written scripts may not: a call without one gets
 * `armb_` + random hex, so its response, the ledger row and the progress lines
 * all name the same call. Repeated ids are kept as they are: the executor
 * rejects a duplicate within one turn, and that rejection is the model's to read.
 */
export function identifyCalls(calls: readonly GeminiFunctionCall[]): IdentifiedCall[] {
  return calls.map((c) => {
    const hasId = typeof c.id === "string" && c.id.length > 0;
    return {
      id: hasId ? (c.id as string) : `armb_${randomBytes(6).toString("hex")}`,
      name: typeof c.name === "string" ? c.name : "",
      args: c.args,
      idAssigned: !hasId,
    };
  });
}

function toExecutorCall(call: IdentifiedCall): FunctionCall {
  return { id: call.id, name: call.name, args: call.args };
}

/**
 * Turns a model turn's function calls into executor calls and the executor's
 * responses into Gemini `FunctionResponse`s (same id and name; rejections
 * under `error`, everything else under `output`, via `toFunctionResponse`).
 */
export class GeminiToolAdapter {
  readonly #executor: CallExecutor;

  constructor(executor: CallExecutor) {
    this.#executor = executor;
  }

  /**
   * One model turn: every call goes to the executor in ONE `execute`, which
   * runs calls on disjoint joints together and queues those sharing a joint
   * in the model's order. One response per call, in call order.
   */
  async respond(calls: readonly IdentifiedCall[], options: RespondOptions): Promise<FunctionResponse[]> {
    if (calls.length === 0) return [];
    const responses = await this.#executor.execute(calls.map(toExecutorCall), {
      deadlineMs: options.deadlineMs,
      signal: options.signal,
    });
    return responses.map(toFunctionResponse);
  }

  /**
   * Live: the same dispatch, but each call waits under its own signal, since
   * `toolCallCancellation` names single ids. Every `execute` is issued in
   * this same tick and in the model's order, and the executor takes its joint
   * locks synchronously, so calls sharing a joint still queue in that order.
   * Calls repeating an id go to the executor together, so the repeat is
   * rejected exactly as in one batch. Returns one promise per call, in order.
   */
  respondEach(
    calls: readonly IdentifiedCall[],
    options: RespondOptions & { readonly signalFor: (callId: string) => AbortSignal },
  ): Promise<FunctionResponse>[] {
    const groups = new Map<string, number[]>();
    calls.forEach((c, i) => groups.set(c.id, [...(groups.get(c.id) ?? []), i]));
    const byIndex = new Map<number, Promise<FunctionResponse>>();
    // The answers go back together in one tool response: one picture budget for all of them.
    const imageBudget = new ImageBudget();
    for (const [id, indexes] of groups) {
      const own = options.signalFor(id);
      const signal = options.signal ? AbortSignal.any([options.signal, own]) : own;
      const batch = this.#executor.execute(
        indexes.map((i) => toExecutorCall(calls[i] as IdentifiedCall)),
        { deadlineMs: options.deadlineMs, signal, imageBudget },
      );
      indexes.forEach((i, k) =>
        byIndex.set(
          i,
          batch.then((rs) => toFunctionResponse(rs[k] as (typeof rs)[number])),
        ),
      );
    }
    return calls.map((_, i) => byIndex.get(i) as Promise<FunctionResponse>);
  }
}
