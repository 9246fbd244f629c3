import type { Cameras } from "../cameras/Cameras.js";
import { cameraChannel, timeOf, type RecordingChannel } from "./recordingChannels.js";

/** The `recording.cameras` keys as code holds them. */
export interface CameraRecording {
  readonly rateHz: number;
  readonly aroundCalls: boolean;
  readonly only?: readonly string[] | undefined;
}

type Write = (channel: RecordingChannel, ms: number, message: object) => void;

/**
 * A frame must come within this long or it is skipped: a camera that hangs
 * must not pile captures up (the simulated camera takes seconds to draw on a
 * busy machine), and closing waits at most this long for the last frames.
 */
const CAPTURE_LIMIT_MS = 5000;

/**
 * Frames from each recorded camera on `/camera/<name>` (foxglove.CompressedImage):
 * every 1/rate_hz seconds, and one as each motion starts and settles. At
 * most one capture per camera is in flight; one that is still running when
 * the next is due makes the next one skip.
 */
export class CameraRecorder {
  readonly #cameras: Cameras;
  readonly #names: readonly string[];
  readonly #settings: CameraRecording;
  readonly #write: Write;
  readonly #busy = new Set<string>();
  readonly #pending = new Set<Promise<void>>();
  readonly #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(cameras: Cameras, settings: CameraRecording, write: Write) {
    this.#cameras = cameras;
    this.#settings = settings;
    this.#write = write;
    const only = settings.only;
    this.#names = cameras.names().filter((n) => only === undefined || only.includes(n));
    if (settings.rateHz > 0 && this.#names.length > 0)
      this.#timer = setInterval(() => this.#every((name) => this.#take(name)), 1000 / settings.rateHz);
  }

  /** A frame of now from each camera (unless one is being taken already, which is as new). */
  aroundCall(): void {
    if (this.#settings.aroundCalls) this.#every((name) => this.#take(name));
  }

  /** No more captures; the ones under way finish (bounded by CAPTURE_LIMIT_MS) and are kept. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#closed = true;
    await Promise.allSettled([...this.#pending]);
  }

  #every(take: (name: string) => Promise<void>): void {
    if (this.#closed) return;
    for (const name of this.#names) {
      if (this.#busy.has(name)) continue;
      this.#busy.add(name);
      const p = take(name)
        .catch(() => undefined)
        .finally(() => {
          this.#busy.delete(name);
          this.#pending.delete(p);
        });
      this.#pending.add(p);
    }
  }

  async #take(name: string): Promise<void> {
    const f = await this.#cameras.capture(name, this.#signal());
    this.#put(name, f.clock === "wall" ? f.capturedAtMs : Date.now(), f.format, f.bytes);
  }

  #put(name: string, ms: number, format: string, bytes: Buffer): void {
    this.#write(cameraChannel(name), ms, {
      timestamp: timeOf(ms),
      frame_id: name,
      format,
      data: bytes.toString("base64"),
    });
  }

  #signal(): AbortSignal {
    return AbortSignal.timeout(CAPTURE_LIMIT_MS);
  }
}
