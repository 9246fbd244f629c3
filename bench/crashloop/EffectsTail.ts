import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { EffectLine } from "../../firmware-sim/effectsJudge.js";

/**
 * Follows a growing effects log (firmware-sim appends one JSON line per
 * physical event, synchronously): each `read()` parses only what was added
 * since the last one. The crash loop polls it every few milliseconds to time
 * its kills against what the arm is really doing.
 */
export class EffectsTail {
  readonly #path: string;
  readonly #events: EffectLine[] = [];
  #offset = 0;
  #partial = "";

  constructor(path: string) {
    this.#path = path;
  }

  /** Every event so far, in log order (the same array, grown). */
  read(): readonly EffectLine[] {
    let fd: number;
    try {
      fd = openSync(this.#path, "r");
    } catch (error) {
      // The simulator creates the file at start; before that the log is empty.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return this.#events;
      throw error;
    }
    try {
      const size = fstatSync(fd).size;
      if (size > this.#offset) {
        const buffer = Buffer.alloc(size - this.#offset);
        const n = readSync(fd, buffer, 0, buffer.length, this.#offset);
        this.#offset += n;
        const text = this.#partial + buffer.subarray(0, n).toString("utf8");
        const lines = text.split("\n");
        // A line still being written stays for the next read.
        this.#partial = lines.pop() ?? "";
        for (const line of lines) if (line.trim() !== "") this.#events.push(JSON.parse(line) as EffectLine);
      }
    } finally {
      closeSync(fd);
    }
    return this.#events;
  }
}
