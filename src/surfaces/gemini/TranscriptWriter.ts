import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * A JSONL record of a run: every model turn, call and response, one object
 * per line with `type` and `t` (epoch ms). Written synchronously so the file
 * is complete up to the last event even if the process dies; its
 * `model_turn` lines replay as they are (`--model replay:TRANSCRIPT`).
 */
export class TranscriptWriter {
  #fd: number | undefined;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, "w");
  }

  write(type: string, fields: Readonly<Record<string, unknown>>): void {
    if (this.#fd === undefined) return;
    writeSync(this.#fd, JSON.stringify({ type, t: Date.now(), ...fields }) + "\n");
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}
