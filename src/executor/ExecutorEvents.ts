import { asArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import type { ExecutorEvent } from "./ExecutorEvent.js";

/** The executor's progress events, told to every listener; a listener that throws is logged and the others still hear. */
export class ExecutorEvents {
  readonly #listeners = new Set<(e: ExecutorEvent) => void>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Subscribe; returns the unsubscribe function. */
  on(listener: (e: ExecutorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  readonly emit = (event: ExecutorEvent): void => {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#log.error({ err: asArmbridgeError(error).toJSON() }, "event listener threw");
      }
    }
  };
}
