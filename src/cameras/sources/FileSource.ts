import { constants, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { ArmbridgeError } from "../../errors.js";
import type { CameraFrame } from "../CameraFrame.js";
import { inspectImage } from "../inspectImage.js";
import type { CameraSource } from "./CameraSource.js";
import { MAX_FRAME_BYTES } from "./HttpSnapshotSource.js";
import { deviceText } from "../../validation/deviceText.js";
import { fileKindOf } from "../../config/files/readBoundedFile.js";

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
  readonly #options: FileSourceOptions;
  readonly #now: () => number;
  /**
   * The file I/O under way. A read on a stalled network mount never ends and
   * holds one of libuv's four pool threads while it waits; every camera and
   * every file operation of the process shares those threads. So one read at
   * a time per file camera: while it is stuck, later grabs are refused at
   * once instead of taking the pool's threads one by one.
   */
  #io: Promise<unknown> | undefined;

  constructor(options: FileSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async grab(signal: AbortSignal): Promise<CameraFrame> {
    const { camera, path } = this.#options;
    let lastProblem = "";
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      let read: FileRead;
      try {
        read = await this.#readOnce(signal);
      } catch (error) {
        if (error instanceof ArmbridgeError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (signal.aborted) break;
        throw new ArmbridgeError(
          "ARMB_ERR_CAMERA_UNAVAILABLE",
          {
            camera,
            source: path,
            reason:
              code === "ENOENT"
                ? "the file does not exist (is the capture program running?)"
                : deviceText("the file system", (error as Error).message),
          },
          { cause: error },
        );
      }
      const { before, bytes, after } = read;
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
    if (signal.aborted && lastProblem === "")
      throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera,
        source: path,
        reason: "the read was cut short by the call's deadline",
      });
    throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", {
      camera,
      reason: `${path}: ${lastProblem} (${ATTEMPTS} reads, ${RETRY_MS} ms apart)`,
    });
  }

  /** One read of the file, given up when `signal` ends (the I/O itself runs on, and blocks the next grab until it ends). */
  #readOnce(signal: AbortSignal): Promise<FileRead> {
    const { camera, path } = this.#options;
    if (this.#io) {
      throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera,
        source: path,
        reason: "an earlier read of the file has not finished: the file system is not answering",
      });
    }
    const io = readWhole(camera, path);
    this.#io = io;
    const done = (): void => {
      if (this.#io === io) this.#io = undefined;
    };
    io.then(done, done);
    return new Promise<FileRead>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason as Error);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      io.then(
        (read) => {
          signal.removeEventListener("abort", onAbort);
          resolve(read);
        },
        (error: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  close(): void {
    // Nothing is held open between grabs.
  }
}

interface FileRead {
  readonly before: Stats;
  readonly bytes: Buffer;
  readonly after: Stats;
}

/**
 * Opened non-blocking so that a FIFO (or a character device) does not hold
 * the open until a writer comes (open(2): O_NONBLOCK on a FIFO opened for
 * reading returns at once), then refused by fstat: only a regular file is a
 * frame another program rewrites. The size is checked before any byte is read.
 */
async function readWhole(camera: string, path: string): Promise<FileRead> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const before = await handle.stat();
    if (!before.isFile())
      throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera,
        source: path,
        reason: `it is ${fileKindOf(before)}, not a regular file a capture program rewrites`,
      });
    if (before.size > MAX_FRAME_BYTES)
      throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", {
        camera,
        reason: `${path} is ${before.size} bytes, over ${MAX_FRAME_BYTES}`,
      });
    const bytes = await handle.readFile();
    return { before, bytes, after: await stat(path) };
  } finally {
    await handle.close();
  }
}
