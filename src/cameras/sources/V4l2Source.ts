import { spawn, type ChildProcess } from "node:child_process";
import { deviceText } from "../../validation/deviceText.js";
import { ArmbridgeError } from "../../errors.js";
import type { CameraFrame } from "../CameraFrame.js";
import { inspectImage } from "../inspectImage.js";
import type { CameraSource } from "./CameraSource.js";
import { MAX_FRAME_BYTES } from "./HttpSnapshotSource.js";
import { JpegStreamSplitter } from "./JpegStreamSplitter.js";

export interface V4l2SourceOptions {
  readonly camera: string;
  readonly device: string;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** The ffmpeg to run (default `ffmpeg` on PATH: Debian's package, never a downloaded binary). */
  readonly ffmpeg?: string;
  /**
   * ffmpeg's input arguments in place of the device's (`-f v4l2 … -i
   * DEVICE`), for a generated stream in tests: e.g. `-f lavfi -i testsrc`.
   * Such input is raw video, so it is encoded to JPEG.
   */
  readonly input?: readonly string[];
  readonly now?: () => number;
}

/** How long an ffmpeg that died waits before it is started again, at most. */
const RESTART_MS = 2000;
/** stderr kept for the message when ffmpeg cannot start or dies. */
const STDERR_TAIL = 2000;

/**
 * A USB webcam (V4L2) through Debian's ffmpeg as a child process, streaming
 * JPEG frames on its stdout; the newest whole frame is what `grab` returns.
 *
 * ffmpeg first asks the camera for MJPEG at the configured size and rate
 * and copies it through (no re-encoding: the camera compresses), with the
 * `mjpeg2jpeg` bitstream filter, which adds the Huffman tables webcams
 * leave out of each frame (MJPEG relies on the standard ones), so every
 * frame is a JPEG any decoder reads (ffmpeg-bitstream-filters, "mjpeg2jpeg").
 * A camera that offers no MJPEG at that size makes ffmpeg fail at once; it
 * is then run again capturing raw frames and encoding them itself.
 *
 * Capture time is when a whole frame arrived from ffmpeg: its raw MJPEG
 * output carries no timestamps, so this is the latest the frame can have
 * been taken (exposure and USB transfer come before it, tens of ms).
 * Frames are checked whole (the stream is split at each frame's EOI, then
 * inspected) and judged stale by the camera's `stale_after_ms` like any
 * other source's.
 */
export class V4l2Source implements CameraSource {
  readonly #options: V4l2SourceOptions;
  readonly #now: () => number;
  #child: ChildProcess | undefined;
  #mode: "copy" | "encode";
  #newest: { bytes: Buffer; at: number } | undefined;
  #stderr = "";
  #exit: string | undefined;
  #startedAt = 0;
  #waiters = new Set<() => void>();
  #closed = false;

  constructor(options: V4l2SourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#mode = options.input ? "encode" : "copy";
  }

  async grab(signal: AbortSignal): Promise<CameraFrame> {
    const { camera } = this.#options;
    if (this.#closed)
      throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera,
        source: this.#describe(),
        reason: "the camera was closed",
      });
    if (!this.#child && this.#now() - this.#startedAt >= RESTART_MS) this.#start();
    // A running stream hands out its newest frame; a stream that just (re)started is waited for.
    if (!this.#newest || !this.#child) await this.#nextFrame(signal);
    const newest = this.#newest;
    if (!newest) {
      throw new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera,
        source: this.#describe(),
        reason:
          this.#exit ?? (signal.aborted ? "no frame from ffmpeg before the call's deadline" : "no frame from ffmpeg"),
      });
    }
    const image = inspectImage(newest.bytes);
    if (!image.ok) throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", { camera, reason: image.reason });
    const notes = ["capture time: when ffmpeg delivered the whole frame (its MJPEG output carries no timestamps)"];
    if (this.#exit) notes.push(`ffmpeg has stopped (${this.#exit}); this is the last frame it sent`);
    if (image.width !== this.#options.width || image.height !== this.#options.height)
      notes.push(
        `the camera delivers ${image.width}×${image.height}, not the ${this.#options.width}×${this.#options.height} configured`,
      );
    return {
      camera,
      source: "v4l2",
      format: image.format,
      bytes: newest.bytes,
      width: image.width,
      height: image.height,
      capturedAtMs: newest.at,
      clock: "wall",
      captureTimeFrom: "received",
      ageMs: Math.max(0, this.#now() - newest.at),
      notes,
    };
  }

  close(): void {
    this.#closed = true;
    this.#child?.kill("SIGTERM");
    this.#child = undefined;
    for (const w of [...this.#waiters]) w();
  }

  #describe(): string {
    return this.#options.input ? `ffmpeg ${this.#options.input.join(" ")}` : `v4l2 ${this.#options.device}`;
  }

  #args(): string[] {
    const { device, width, height, fps, input } = this.#options;
    const source = input
      ? [...input]
      : [
          "-f",
          "v4l2",
          ...(this.#mode === "copy" ? ["-input_format", "mjpeg"] : []),
          "-video_size",
          `${width}x${height}`,
          "-framerate",
          String(fps),
          "-i",
          device,
        ];
    const output =
      this.#mode === "copy"
        ? ["-c:v", "copy", "-bsf:v", "mjpeg2jpeg"]
        : ["-c:v", "mjpeg", "-q:v", "4", "-pix_fmt", "yuvj420p"];
    return ["-hide_banner", "-nostdin", "-loglevel", "error", ...source, "-an", ...output, "-f", "mjpeg", "pipe:1"];
  }

  #start(): void {
    this.#startedAt = this.#now();
    this.#exit = undefined;
    this.#stderr = "";
    const splitter = new JpegStreamSplitter({ maxBytes: MAX_FRAME_BYTES });
    const child = spawn(this.#options.ffmpeg ?? "ffmpeg", this.#args(), { stdio: ["ignore", "pipe", "pipe"] });
    this.#child = child;
    let frames = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        frames++;
        this.#newest = { bytes: frame, at: this.#now() };
        for (const w of [...this.#waiters]) w();
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    const ended = (why: string): void => {
      if (this.#child !== child) return;
      this.#child = undefined;
      const said = this.#stderr.trim().split("\n").slice(-3).join(" / ");
      // ffmpeg relays what the device and its driver said: device text, the operator's to read, not a model's.
      this.#exit = `${why}${said ? `: ${deviceText("ffmpeg's error output", said)}` : ""}`;
      // A camera with no MJPEG at this size: ffmpeg gives up before the first frame. Capture raw and encode instead, at once.
      if (this.#mode === "copy" && frames === 0 && !this.#closed && !this.#options.input) {
        this.#mode = "encode";
        this.#start();
        return;
      }
      for (const w of [...this.#waiters]) w();
    };
    child.on("error", (error) =>
      ended(`cannot run ffmpeg (${error.message}); install it: sudo apt-get install ffmpeg`),
    );
    child.on("exit", (code, signal) => ended(`ffmpeg exited (${signal ?? `code ${code}`})`));
  }

  /** Resolves at the next frame, when ffmpeg stops, or when `signal` fires. */
  #nextFrame(signal: AbortSignal): Promise<void> {
    if (signal.aborted || !this.#child) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.#waiters.delete(onFrame);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const onFrame = (): void => done();
      this.#waiters.add(onFrame);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
