import { readFile, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { ArmbridgeError } from "../../errors.js";
import type { CameraFrame } from "../CameraFrame.js";
import { inspectImage } from "../inspectImage.js";
import type { CameraSource } from "./CameraSource.js";
import { MAX_FRAME_BYTES } from "./HttpSnapshotSource.js";
import { deviceText } from "../../validation/deviceText.js";

/** A writer mid-frame gets this many more looks, this far apart, before the frame is called broken. */
const ATTEMPTS = 6;
const RETRY_MS = 25;

export interface FileSourceOptions {
  readonly camera: string;
  readonly path: string;
  readonly now?: () => number;
}

/**
 * A JPEG or PNG file another program keeps rewriting (a capture script,
 * `ffmpeg -update 1`, motion's `snapshot`). The modification time is the
 * capture time. A writer that truncates and rewrites in place can be caught
 * mid-write: the file's size and mtime are read before and after the bytes,
 * and the bytes must be a whole image (its end marker present); otherwise it
 * is read again a little later. Writers that write a temporary file and
 * rename it over the old one (atomic) never show a partial frame.
 */
export class FileSource implements CameraSource {
  readonly #o: FileSourceOptions;
  readonly #now: () => number;

  constructor(options: FileSourceOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  async grab(signal: AbortSignal): Promise<CameraFrame> {
    const { camera, path } = this.#o;
    let lastProblem = "";
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      let before;
      let bytes: Buffer;
      let after;
      try {
        before = await stat(path);
        if (before.size > MAX_FRAME_BYTES) throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", { camera, reason: `${path} is ${before.size} bytes, over ${MAX_FRAME_BYTES}` });
        bytes = await readFile(path, { signal });
        after = await stat(path);
      } catch (error) {
        if (error instanceof ArmbridgeError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (signal.aborted) break;
        throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", { camera, source: path, reason: code === "ENOENT" ? "the file does not exist (is the capture program running?)" : deviceText("the file system", (error as Error).message) }, { cause: error });
      }
      if (before.mtimeMs !== after.mtimeMs || before.size !== after.size || bytes.length !== after.size) {
        lastProblem = "the file changed while it was read";
        continue;
      }
      const image = inspectImage(bytes);
      if (!image.ok) {
        lastProblem = image.reason;
        continue;
      }
      const nowMs = this.#now();
      return {
        camera,
        source: "file",
        format: image.format,
        bytes,
        width: image.width,
        height: image.height,
        capturedAtMs: after.mtimeMs,
        clock: "wall",
        captureTimeFrom: "mtime",
        ageMs: Math.max(0, nowMs - after.mtimeMs),
        notes: attempt > 0 ? [`read ${attempt + 1} times: the writer was mid-frame`] : [],
      };
    }
    if (signal.aborted && lastProblem === "") throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", { camera, source: path, reason: "the read was cut short by the call's deadline" });
    throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", { camera, reason: `${path}: ${lastProblem} (${ATTEMPTS} reads, ${RETRY_MS} ms apart)` });
  }

  close(): void {
    // Nothing is held open between grabs.
  }
}
