import type { ModelLinkEvent } from "./ModelLinkEvent.js";
import { streamFrame } from "./streamFrame.js";

/** A camera to watch during a Live run (`--stream-camera NAME --fps F`). */
export interface CameraFeed {
  readonly camera: string;
  /** Frames per second, within STREAM_FPS_RANGE. */
  readonly fps: number;
  /** One frame, as the camera gives it (JPEG or PNG). */
  grab(signal: AbortSignal): Promise<{ readonly bytes: Buffer; readonly mimeType: string }>;
}

/** The rates --fps accepts: at most 2 a second (a streaming model samples video at about 1 FPS), at least one every 10 s. */
export const STREAM_FPS_RANGE = { min: 0.1, max: 2 } as const;
export const DEFAULT_STREAM_FPS = 1;

export interface CameraStreamerOptions {
  readonly feed: CameraFeed;
  /** Sends a frame as realtime video input; false when no connection is up (the frame is dropped). */
  readonly send: (frame: { readonly data: string; readonly mimeType: string }) => boolean;
  readonly report: (event: ModelLinkEvent) => void;
}

/**
 * Sends the feed's frames into the Live session as realtime video input
 * (`realtimeInput.video`, a JPEG Blob — @google/genai
 * `LiveSendRealtimeInputParameters.video`), so a streaming model watches the
 * scene between calls. One grab at a time, at most `fps` a second, each frame
 * bounded in size (`streamFrame`); frames are dropped, never queued, while
 * the connection is being replaced. A camera that fails is reported once,
 * and again when it recovers; the stream keeps trying.
 */
export class CameraStreamer {
  readonly #options: CameraStreamerOptions;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #failing = false;
  sent = 0;

  constructor(options: CameraStreamerOptions) {
    this.#options = options;
  }

  start(): void {
    const { feed } = this.#options;
    this.#options.report({
      kind: "camera_stream",
      camera: feed.camera,
      state: "started",
      detail: `${feed.fps} frame(s) per second, JPEG`,
    });
    this.#schedule(0);
  }

  /** Stops sending; the next stop() does nothing. */
  async stop(): Promise<void> {
    if (this.#stop.signal.aborted) return;
    this.#stop.abort();
    clearTimeout(this.#timer);
    await this.#running;
    this.#options.report({
      kind: "camera_stream",
      camera: this.#options.feed.camera,
      state: "stopped",
      detail: `${this.sent} frame(s) sent`,
    });
  }

  #schedule(delayMs: number): void {
    if (this.#stop.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#tick();
    }, delayMs);
  }

  async #tick(): Promise<void> {
    const started = Date.now();
    const { feed } = this.#options;
    try {
      const raw = await feed.grab(this.#stop.signal);
      const frame = streamFrame(raw.bytes, raw.mimeType);
      if (frame === undefined) throw new Error("the frame does not fit the size bound at any JPEG quality");
      if (this.#options.send({ data: frame.bytes.toString("base64"), mimeType: frame.mimeType })) this.sent++;
      if (this.#failing) {
        this.#failing = false;
        this.#options.report({ kind: "camera_stream", camera: feed.camera, state: "recovered", detail: "" });
      }
    } catch (error) {
      if (this.#stop.signal.aborted) return;
      if (!this.#failing) {
        this.#failing = true;
        this.#options.report({
          kind: "camera_stream",
          camera: feed.camera,
          state: "failing",
          detail: error instanceof Error ? error.message : String(error),
        });
      }
    }
    this.#schedule(Math.max(0, 1000 / feed.fps - (Date.now() - started)));
  }
}
