import type { ExecutorEvent } from "../../bridge/BridgePort.js";
import type { IdentifiedCall } from "./GeminiToolAdapter.js";

/** A motion this run started: the call, and the action the executor recorded for it. */
export interface RunMotion {
  readonly call: IdentifiedCall;
  readonly actionId: string;
}

/**
 * The actions this run's calls started, in order, from the executor's
 * `started` events (one per action written to the ledger): what a fresh
 * session is told about, from the ledger.
 */
export class RunMotionLog {
  readonly #calls = new Map<string, IdentifiedCall>();
  readonly #started: RunMotion[] = [];

  /** A call of this run, sent to the executor. */
  dispatched(call: IdentifiedCall): void {
    this.#calls.set(call.id, call);
  }

  readonly onExecutorEvent = (e: ExecutorEvent): void => {
    if (e.type !== "started") return;
    const call = this.#calls.get(e.callId);
    if (call) this.#started.push({ call, actionId: e.actionId });
  };

  started(): readonly RunMotion[] {
    return [...this.#started];
  }
}
