import { createInterface, type Interface } from "node:readline";

/**
 * Answers typed at the terminal (or written to stdin by a script), one line
 * at a time, read only when a question is asked. Closed stdin (EOF) answers
 * `undefined`: a question nobody can answer.
 */
export class LineReader {
  readonly #input: NodeJS.ReadableStream | undefined;
  #rl: Interface | undefined;
  readonly #lines: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;

  constructor(input: NodeJS.ReadableStream | undefined) {
    this.#input = input;
  }

  /** The next line, or undefined once the input has ended. */
  next(signal?: AbortSignal): Promise<string | undefined> {
    this.#start();
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiting = undefined;
        resolve(undefined);
      };
      this.#waiting = (line) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Whether the input has ended (and every line was taken). */
  get ended(): boolean {
    return this.#ended && this.#lines.length === 0;
  }

  /** A line if one is already typed (Enter pressed), without waiting. */
  poll(): string | undefined {
    this.#start();
    return this.#lines.shift();
  }

  close(): void {
    this.#rl?.close();
    this.#rl = undefined;
  }

  #start(): void {
    if (this.#rl || this.#ended) return;
    if (!this.#input) {
      this.#ended = true;
      return;
    }
    this.#rl = createInterface({ input: this.#input, terminal: false });
    this.#rl.on("line", (line) => {
      const w = this.#waiting;
      this.#waiting = undefined;
      if (w) w(line);
      else this.#lines.push(line);
    });
    this.#rl.on("close", () => {
      this.#ended = true;
      const w = this.#waiting;
      this.#waiting = undefined;
      w?.(undefined);
    });
  }
}
