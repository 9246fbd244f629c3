import { MAX_FRAME_BYTES } from "./sources/HttpSnapshotSource.js";

/**
 * Captures under way at once in the whole process, over every camera. A
 * capture holds its frame whole in memory (up to MAX_FRAME_BYTES, 20 MiB),
 * so this bounds the frame bytes in flight at 4 × 20 MiB whatever the number
 * of cameras and callers; with one capture per camera (SharedCapture) it is
 * reached only by four cameras busy at once.
 */
export const CAPTURES_IN_FLIGHT = 4;
export const FRAME_BYTES_IN_FLIGHT = CAPTURES_IN_FLIGHT * MAX_FRAME_BYTES;

/** A counting semaphore whose waits end with their signal. */
export class CaptureSlots {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit = CAPTURES_IN_FLIGHT) {
    this.#limit = limit;
  }

  /** Runs `work` once a slot is free; rejects with `signal`'s reason if it ends first. */
  async hold<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    while (this.#held >= this.#limit) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const i = this.#waiting.indexOf(wake);
          if (i !== -1) this.#waiting.splice(i, 1);
          reject(signal.reason as Error);
        };
        const wake = (): void => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        this.#waiting.push(wake);
        signal.addEventListener("abort", onAbort, { once: true });
      });
    }
    this.#held++;
    try {
      return await work();
    } finally {
      this.#held--;
      this.#waiting.shift()?.();
    }
  }
}

/** The process's one bound: every Cameras shares it (a bridge and its tools in one process). */
export const PROCESS_CAPTURE_SLOTS = new CaptureSlots();
