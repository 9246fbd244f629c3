import { ArmbridgeError } from "../../errors.js";
import type { CameraFrame } from "../CameraFrame.js";
import { inspectImage } from "../inspectImage.js";
import type { CameraSource } from "./CameraSource.js";
import type { CompressedImageTopics } from "./CompressedImageTopics.js";
import { deviceText } from "../../validation/deviceText.js";

/** A header stamp further ahead of the node's clock than this is a skewed publisher clock. */
const FUTURE_TOLERANCE_MS = 1000;

interface Latest {
  readonly bytes: Buffer;
  readonly format: string;
  readonly stampMs: number | undefined;
  readonly receivedMs: number;
}

/**
 * A `sensor_msgs/msg/CompressedImage` topic (image_transport's `compressed`
 * plugin: `format` like "jpeg" or "rgb8; jpeg compressed bgr8", `data` the
 * encoded bytes, a uint8[] that rclnodejs 2.2.0 delivers as a Uint8Array —
 * rosidl_gen/templates/message-template.cjs `getTypedArrayName`). The
 * newest message is kept; `header.stamp` is the capture time, compared with
 * the node's clock, which is /clock under use_sim_time, as Gazebo's camera
 * stamps are. A zero stamp (publishers that do not fill it), or one ahead of
 * the node's clock (a skewed host), falls back to the receive time.
 *
 * It subscribes through the bridge's ROS host (its one node), so the camera
 * and the arm share one clock.
 */
export class RosCompressedImageSource implements CameraSource {
  readonly #camera: string;
  readonly #topic: string;
  readonly #topics: CompressedImageTopics;
  readonly #unsubscribe: () => void;
  readonly #waiters = new Set<() => void>();
  #latest: Latest | undefined;
  #closed = false;

  constructor(options: { readonly camera: string; readonly topic: string; readonly topics: CompressedImageTopics }) {
    this.#camera = options.camera;
    this.#topic = options.topic;
    this.#topics = options.topics;
    this.#unsubscribe = options.topics.subscribe(options.topic, (msg) => this.#handle(msg));
  }

  #nowMs(): number {
    return this.#topics.nowMs();
  }

  #handle(raw: unknown): void {
    const msg = raw as { header?: { stamp?: { sec?: number; nanosec?: number } }; format?: unknown; data?: unknown };
    const data = msg.data;
    const bytes =
      data instanceof Uint8Array
        ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
        : Array.isArray(data)
          ? Buffer.from(data as number[])
          : undefined;
    if (!bytes) return;
    const sec = msg.header?.stamp?.sec ?? 0;
    const nanosec = msg.header?.stamp?.nanosec ?? 0;
    const stampMs = sec === 0 && nanosec === 0 ? undefined : sec * 1000 + nanosec / 1e6;
    // Copied: the message's buffer may be reused by the next delivery.
    this.#latest = {
      bytes: Buffer.from(bytes),
      format: typeof msg.format === "string" ? msg.format : "",
      stampMs,
      receivedMs: this.#nowMs(),
    };
    for (const w of [...this.#waiters]) w();
  }

  async grab(signal: AbortSignal): Promise<CameraFrame> {
    if (this.#closed) throw this.#unavailable("the camera is closed");
    const latest = this.#latest ?? (await this.#first(signal));
    const image = inspectImage(latest.bytes);
    if (!image.ok)
      throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", {
        camera: this.#camera,
        reason: `${this.#topic} (format ${deviceText("the publisher's format field", latest.format)}): ${image.reason}`,
      });
    const now = this.#nowMs();
    const notes: string[] = [];
    let capturedAtMs = latest.receivedMs;
    let from: CameraFrame["captureTimeFrom"] = "received";
    if (latest.stampMs === undefined) notes.push("header.stamp is zero; the receive time is used");
    else if (latest.stampMs > now + FUTURE_TOLERANCE_MS)
      notes.push(
        `header.stamp is ${Math.round(latest.stampMs - now)} ms ahead of the node's clock (a skewed publisher, or use_sim_time set on one side only); the receive time is used`,
      );
    else {
      capturedAtMs = latest.stampMs;
      from = "header_stamp";
    }
    return {
      camera: this.#camera,
      source: "ros",
      format: image.format,
      bytes: latest.bytes,
      width: image.width,
      height: image.height,
      capturedAtMs,
      clock: "ros",
      captureTimeFrom: from,
      ageMs: Math.max(0, now - capturedAtMs),
      notes,
    };
  }

  #first(signal: AbortSignal): Promise<Latest> {
    return new Promise<Latest>((resolve, reject) => {
      const done = (): void => {
        this.#waiters.delete(done);
        signal.removeEventListener("abort", onAbort);
        if (this.#latest) resolve(this.#latest);
      };
      const onAbort = (): void => {
        this.#waiters.delete(done);
        reject(
          this.#unavailable(`no message on ${this.#topic} yet (is the camera driver publishing its compressed topic?)`),
        );
      };
      if (signal.aborted) return onAbort();
      this.#waiters.add(done);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #unavailable(reason: string): ArmbridgeError {
    return new ArmbridgeError("ARMB_ERR_CAMERA_UNAVAILABLE", {
      camera: this.#camera,
      source: `ros topic ${this.#topic}`,
      reason,
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
  }
}
