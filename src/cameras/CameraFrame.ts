import type { CameraSourceConfig } from "../config/sections/cameras.js";
import type { ImageFormat } from "../imaging/encodeImage.js";

/** Where a frame's capture time came from, most trustworthy first. */
export type CaptureTimeSource =
  /** The simulator drew it from the pose with this stamp. */
  | "rendered"
  /** sensor_msgs header.stamp, on the ROS clock (sim time under use_sim_time). */
  | "header_stamp"
  /** The camera's X-Timestamp header (mjpg-streamer, ESP32 CameraWebServer), when it is wall-clock time. */
  | "x_timestamp"
  /** The file's modification time. */
  | "mtime"
  /** When we received it: the camera said nothing usable, so this is the latest it can have been taken. */
  | "received";

/** One picture from a camera, whole (checked), with when it was taken. */
export interface CameraFrame {
  readonly camera: string;
  readonly source: CameraSourceConfig["kind"];
  readonly format: ImageFormat;
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
  /** Epoch ms on the wall clock, or ms on the ROS clock for a ROS camera (see `clock`). */
  readonly capturedAtMs: number;
  readonly clock: "wall" | "ros";
  readonly captureTimeFrom: CaptureTimeSource;
  /** How old it was when we got it (ms, on its own clock). */
  readonly ageMs: number;
  /** Anything a reader should know: a clock that could not be trusted, a pose the simulator did not have. */
  readonly notes: readonly string[];
}

/** A frame judged against its camera's `stale_after_ms`. */
export interface LabelledFrame extends CameraFrame {
  readonly stale: boolean;
  readonly staleAfterMs: number;
}
