/** Something a command opened and must close: named for the log line a failed close writes. */
interface Opened {
  readonly what: string;
  readonly close: () => Promise<void> | void;
}

/**
 * The resources of one command's process: each is added as it opens, and
 * closing runs them last-opened first (stop taking requests, then release
 * the arm, then stop the arm), each once, within a deadline when one is
 * given. A step that failed half-way leaves only what it opened, so the same
 * close serves a start that failed, a stop signal and a normal end.
 */
export class ProcessScope {
  readonly #opened: Opened[] = [];

  /** Closed before everything added earlier. Returns a function that takes it out again (another resource took over its closing). */
  add(what: string, close: () => Promise<void> | void): () => void {
    const entry: Opened = { what, close };
    this.#opened.push(entry);
    return () => {
      const at = this.#opened.indexOf(entry);
      if (at !== -1) this.#opened.splice(at, 1);
    };
  }

  /**
   * Closes everything, last opened first. A failure goes to `onError` and the
   * rest still close; without `onError` the first failure is thrown once
   * everything else has closed.
   */
  async close(onError?: (what: string, error: unknown) => void): Promise<void> {
    let first: { error: unknown } | undefined;
    while (this.#opened.length > 0) {
      const entry = this.#opened.pop() as Opened;
      try {
        await entry.close();
      } catch (error) {
        if (onError) onError(entry.what, error);
        else first ??= { error };
      }
    }
    if (first) throw first.error;
  }

  /** `close`, but waiting at most `limitMs`: "timed_out" says the rest was left closing. */
  async closeWithin(
    limitMs: number,
    onError?: (what: string, error: unknown) => void,
  ): Promise<"closed" | "timed_out"> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"timed_out">((resolve) => {
      timer = setTimeout(() => resolve("timed_out"), limitMs);
    });
    try {
      return await Promise.race([this.close(onError).then(() => "closed" as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
