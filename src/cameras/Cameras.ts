import type { ArmConfig } from "../config/ArmConfig.js";
import type { CameraConfig } from "../config/sections/cameras.js";
import { ArmbridgeError } from "../errors.js";
import type { Logger } from "../observability/logger.js";
import type { CameraFrame, LabelledFrame } from "./CameraFrame.js";
import { PROCESS_CAPTURE_SLOTS, type CaptureSlots } from "./CaptureSlots.js";
import { SharedCapture } from "../imaging/SharedCapture.js";
import type { ImageFormat } from "../imaging/encodeImage.js";
import type { CameraSource } from "./sources/CameraSource.js";
import type { CompressedImageTopics } from "./sources/CompressedImageTopics.js";
import { FileSource } from "./sources/FileSource.js";
import { HttpSnapshotSource } from "./sources/HttpSnapshotSource.js";
import { RosCompressedImageSource } from "./sources/RosCompressedImageSource.js";
import { SimCameraSource, type StampedPose } from "./sources/SimCameraSource.js";
import { V4l2Source } from "./sources/V4l2Source.js";

export interface CamerasOptions {
  readonly config: ArmConfig;
  /** The arm's newest pose, for the simulated camera's drawing of the arm. */
  readonly pose: () => StampedPose | undefined;
  /** A fresh pose worth a short wait (the next status), when the newest is old. */
  readonly freshPose?: ((signal: AbortSignal) => Promise<StampedPose | undefined>) | undefined;
  /** Camera topics of the bridge's ROS host, when the bridge runs on ROS: ROS cameras subscribe through it. */
  readonly imageTopics?: CompressedImageTopics | undefined;
  readonly now?: () => number;
  readonly logger?: Logger | undefined;
  /** The bound on captures in flight; the process-wide one unless a test gives its own. */
  readonly slots?: CaptureSlots | undefined;
}

/** A frame kept for later: its bytes, or (the simulated camera) how to draw them. */
export interface KeepableFrame {
  readonly camera: string;
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  readonly capturedAtMs: number;
  readonly clock: "wall" | "ros";
  readonly stale: boolean;
  readonly bytes: Buffer | (() => Promise<Buffer>);
}

/**
 * The configured cameras, by name: each one's source, and frames labelled
 * stale against its `stale_after_ms`. A camera that cannot be set up (a ROS
 * topic without the ros2 transport) is not dropped: every grab says why.
 */
export class Cameras {
  readonly #configs: ReadonlyMap<string, CameraConfig>;
  readonly #sources = new Map<string, CameraSource | ArmbridgeError>();
  readonly #flights = new Map<string, SharedCapture<CameraFrame>>();
  readonly #slots: CaptureSlots;

  constructor(options: CamerasOptions) {
    this.#slots = options.slots ?? PROCESS_CAPTURE_SLOTS;
    this.#configs = new Map(options.config.cameras.map((c) => [c.name, c]));
    for (const c of options.config.cameras) this.#sources.set(c.name, sourceFor(c, options));
  }

  names(): string[] {
    return [...this.#configs.keys()];
  }

  get(name: string): CameraConfig | undefined {
    return this.#configs.get(name);
  }

  /** One frame from `name`, whole and labelled; throws ArmbridgeError (CAMERA_UNKNOWN, CAMERA_UNAVAILABLE, CAMERA_FRAME_INVALID). */
  async capture(name: string, signal: AbortSignal): Promise<LabelledFrame> {
    const config = this.#configs.get(name);
    const source = this.#sources.get(name);
    if (!config || !source) throw this.unknown(name);
    if (source instanceof ArmbridgeError) throw source;
    let flight = this.#flights.get(name);
    if (!flight) this.#flights.set(name, (flight = new SharedCapture()));
    const cutShort = (): ArmbridgeError =>
      new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
        camera: name,
        source: config.source.kind,
        reason: "the call's deadline came before the camera's frame",
      });
    // One capture per camera at a time, joined by every request meanwhile, and a process-wide bound on captures (their bytes) in flight.
    const frame = await flight.join(signal, (own) => this.#slots.hold(own, () => source.grab(own)), cutShort);
    return { ...frame, stale: frame.ageMs > config.staleAfterMs, staleAfterMs: config.staleAfterMs };
  }

  /** ARMB_ERR_CAMERA_UNKNOWN for `name`, naming the configured cameras. */
  unknown(name: string): ArmbridgeError {
    const choices = this.names();
    return new ArmbridgeError("ARMB_ERR_CAMERA_UNKNOWN", {
      camera: JSON.stringify(name),
      list: choices.join(", ") || "none",
      choices,
    });
  }

  /**
   * A frame of now for keeping: the simulated camera keeps the newest pose
   * at once (no wait for the next status) and draws it only when asked
   * (`bytes` is then a function), so a picture taken as a motion is queued
   * shows the arm before it is sent, costs the motion nothing, and holds no
   * bytes until someone looks. A real camera is grabbed as usual; its
   * `capturedAtMs` tells the truth about when.
   */
  async captureForKeeping(name: string, signal: AbortSignal): Promise<KeepableFrame> {
    const config = this.#configs.get(name);
    const source = this.#sources.get(name);
    if (config && source instanceof SimCameraSource) {
      const later = source.deferred();
      const { width, height, format } = config.sim;
      return {
        camera: name,
        format,
        width,
        height,
        capturedAtMs: later.capturedAtMs,
        clock: "wall",
        stale: false,
        bytes: async () => (await later.draw()).bytes,
      };
    }
    const f = await this.capture(name, signal);
    return {
      camera: name,
      format: f.format,
      width: f.width,
      height: f.height,
      capturedAtMs: f.capturedAtMs,
      clock: f.clock,
      stale: f.stale,
      bytes: f.bytes,
    };
  }

  close(): void {
    for (const s of this.#sources.values()) if (!(s instanceof ArmbridgeError)) s.close();
  }
}

function sourceFor(c: CameraConfig, o: CamerasOptions): CameraSource | ArmbridgeError {
  switch (c.source.kind) {
    case "sim":
      return new SimCameraSource({
        camera: c,
        arm: o.config,
        pose: o.pose,
        freshPose: o.freshPose,
        ...(o.now ? { now: o.now } : {}),
      });
    case "http":
      return new HttpSnapshotSource({
        camera: c.name,
        url: c.source.url,
        timeoutMs: c.source.timeoutMs,
        ...(o.now ? { now: o.now } : {}),
      });
    case "file":
      return new FileSource({ camera: c.name, path: c.source.path, ...(o.now ? { now: o.now } : {}) });
    case "v4l2":
      return new V4l2Source({
        camera: c.name,
        device: c.source.device,
        width: c.source.width,
        height: c.source.height,
        fps: c.source.fps,
        ...(o.now ? { now: o.now } : {}),
      });
    case "ros":
      if (!o.imageTopics) {
        return new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
          camera: c.name,
          source: `ros topic ${c.source.topic}`,
          reason: "a ROS camera needs the bridge on the ros2 transport (it subscribes on the bridge's node and clock)",
        });
      }
      try {
        return new RosCompressedImageSource({ camera: c.name, topic: c.source.topic, topics: o.imageTopics });
      } catch (error) {
        o.logger?.warn({ camera: c.name, err: (error as Error).message }, "cannot subscribe to the camera topic");
        return new ArmbridgeError(
          "ARMB_ERR_CAMERA_UNAVAILABLE",
          { camera: c.name, source: `ros topic ${c.source.topic}`, reason: (error as Error).message },
          { cause: error },
        );
      }
  }
}
