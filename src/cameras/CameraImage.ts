import type { LabelledFrame } from "./CameraFrame.js";
import { MIME_TYPES } from "../imaging/encodeImage.js";

/**
 * A frame as it travels in a call's result (`images` of a CallResult).
 * Surfaces lift `data` out into their own image content — MCP `image`
 * content, Gemini inline data — and keep the rest as JSON the model reads.
 */
export interface CameraImage {
  readonly camera: string;
  readonly mime_type: string;
  /** The image bytes, base64. */
  readonly data: string;
  readonly width: number;
  readonly height: number;
  /** ISO 8601 for a wall-clock camera; for a ROS camera the ROS clock's seconds (sim time under use_sim_time). */
  readonly captured_at: string;
  readonly capture_time_from: LabelledFrame["captureTimeFrom"];
  readonly age_ms: number;
  readonly stale: boolean;
  readonly stale_after_ms: number;
  readonly notes?: readonly string[];
}

/** The image's description without its bytes: what goes into JSON next to a separately delivered image. */
export type CameraImageMeta = Omit<CameraImage, "data">;

/**
 * An image as a CallResult carries it: with its bytes while inside the
 * bridge; once a surface lifted the bytes into its own image content, the
 * description only, saying where the picture went.
 */
export type ResultImage = CameraImageMeta & { readonly data?: string; readonly delivered_as?: string };

export function toCameraImage(frame: LabelledFrame): CameraImage {
  return {
    camera: frame.camera,
    mime_type: MIME_TYPES[frame.format],
    data: frame.bytes.toString("base64"),
    width: frame.width,
    height: frame.height,
    captured_at:
      frame.clock === "wall"
        ? new Date(frame.capturedAtMs).toISOString()
        : `${(frame.capturedAtMs / 1000).toFixed(3)} s (ROS clock)`,
    capture_time_from: frame.captureTimeFrom,
    age_ms: Math.round(frame.ageMs),
    stale: frame.stale,
    stale_after_ms: frame.staleAfterMs,
    ...(frame.notes.length > 0 ? { notes: frame.notes } : {}),
  };
}

export function withoutData(image: CameraImage): CameraImageMeta {
  const { data: _data, ...meta } = image;
  return meta;
}

/** One line for a message: "camera overhead, 640×480 image/jpeg, captured 12 ms ago". */
export function describeImage(image: CameraImageMeta): string {
  return (
    `camera ${image.camera}, ${image.width}×${image.height} ${image.mime_type}, ` +
    (image.stale
      ? `STALE: captured ${image.age_ms} ms ago (over its ${image.stale_after_ms} ms limit; the scene may have changed)`
      : `captured ${image.age_ms} ms ago`)
  );
}
