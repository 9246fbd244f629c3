import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { McapFile } from "./McapFile.js";
import type { RecordingChannel } from "./recordingChannels.js";

export interface RecordingFolderOptions {
  readonly dir: string;
  readonly maxBytes: number;
  readonly maxFileBytes: number;
  readonly chunkBytes: number;
  /** Written into each file's `armbridge` metadata record (arm, session, …). */
  readonly metadata: Record<string, string>;
  /** Told of each file removed to keep the budget. */
  readonly onRemoved: (path: string, bytes: number) => void;
}

/** The files of a recording folder, oldest first: names sort by the time they were started. */
export function recordingFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(".mcap"))
    .sort()
    .map((n) => join(dir, n));
}

/**
 * The folder a serve records into: a new file for each session of serve, the
 * next one when a file passes `maxFileBytes`, and the oldest files removed
 * whenever the folder passes `maxBytes` (never the file being written).
 */
export class RecordingFolder {
  readonly #options: RecordingFolderOptions;
  readonly #session: string;
  #part = 0;
  #file: McapFile;
  readonly #closing: Promise<void>[] = [];

  constructor(options: RecordingFolderOptions) {
    this.#options = options;
    mkdirSync(options.dir, { recursive: true });
    // An ISO time without ':' (a file name Windows takes too), sorting in time order.
    this.#session = new Date().toISOString().replace(/[:.]/g, "-");
    this.#file = this.#open();
  }

  get current(): string {
    return this.#file.path;
  }

  write(channel: RecordingChannel, timeMs: number, message: object): void {
    this.#file.write(channel, timeMs, message);
    if (this.#file.bytes >= this.#options.maxFileBytes) this.rotate();
  }

  /** Ends the current file (summary and all) and starts the next. */
  rotate(): void {
    const ended = this.#file;
    this.#file = this.#open();
    this.#closing.push(ended.end().then(() => this.#keepBudget()));
  }

  async drain(): Promise<void> {
    await this.#file.drain();
  }

  async close(): Promise<void> {
    await Promise.all(this.#closing);
    await this.#file.end();
    this.#keepBudget();
  }

  #open(): McapFile {
    const name = `armbridge-${this.#session}-${String(this.#part++).padStart(4, "0")}.mcap`;
    const file = new McapFile(join(this.#options.dir, name), {
      chunkBytes: this.#options.chunkBytes,
      metadata: { ...this.#options.metadata, session: this.#session, part: String(this.#part - 1) },
    });
    this.#file = file;
    this.#keepBudget();
    return file;
  }

  /** Oldest first, until the folder fits the budget; the file being written stays whatever its size. */
  #keepBudget(): void {
    const files = recordingFiles(this.#options.dir).map((path) => ({ path, bytes: sizeOf(path) }));
    let total = files.reduce((sum, f) => sum + f.bytes, 0);
    for (const f of files) {
      if (total <= this.#options.maxBytes) return;
      if (f.path === this.#file.path) continue;
      rmSync(f.path, { force: true });
      total -= f.bytes;
      this.#options.onRemoved(f.path, f.bytes);
    }
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
