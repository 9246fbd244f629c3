import { cameraUrl } from "../../config/cameraUrl.js";
import { ArmbridgeError } from "../../errors.js";
import type { CameraFrame } from "../CameraFrame.js";
import { inspectImage } from "../inspectImage.js";
import type { CameraSource } from "./CameraSource.js";
import { deviceText } from "../../validation/deviceText.js";

/** A snapshot larger than this is refused rather than buffered: no camera frame is anywhere near it. */
export const MAX_FRAME_BYTES = 20 * 1024 * 1024;

/** An X-Timestamp before this (2001-09-09) is not epoch time but a monotonic clock (seconds since the camera booted). */
const EPOCH_FLOOR_S = 1e9;
/** A wall-clock stamp further ahead of ours than this is a skewed camera clock, not a frame from the future. */
const FUTURE_TOLERANCE_MS = 1000;

export interface HttpSnapshotSourceOptions {
  readonly camera: string;
  readonly url: string;
  readonly timeoutMs: number;
  readonly now?: () => number;
}

/**
 * A camera that answers each GET with one JPEG: IP cameras, and
 * mjpg-streamer's `?action=snapshot`. What mjpg-streamer does (output_http
 * `send_snapshot`, jacksonliam/mjpg-streamer commit 03b007da,
 * mjpg-streamer-experimental/plugins/output_http/httpd.c): it waits for the
 * NEXT frame from the input plugin (so a stalled camera makes the request
 * hang — the timeout turns that into "unavailable"), then answers HTTP/1.0
 * with `Content-type: image/jpeg`, `X-Timestamp: <sec>.<usec>` and NO
 * Content-Length, the body ending when the connection closes — so a body cut
 * short looks like a complete response and only the JPEG's own end marker
 * tells. The X-Timestamp is the V4L2 buffer's timestamp, which on current
 * kernels is CLOCK_MONOTONIC (seconds since boot), not wall time: such a
 * stamp is not used as the capture time; the receive time is (the frame was
 * fresh when sent, having been waited for).
 */
export class HttpSnapshotSource implements CameraSource {
  readonly #options: HttpSnapshotSourceOptions;
  readonly #now: () => number;
  /** The URL without credentials: what is fetched and what errors name. */
  readonly #url: string;
  readonly #authorization: string | undefined;

  constructor(options: HttpSnapshotSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    // The config refused a URL that cannot be split (cameraConfig); one built in code is held to the same rule, naming the camera.
    const url = cameraUrl(options.url);
    if (!url.ok)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: `camera ${options.camera}`,
        issues: `source.http: the URL ${url.reason}`,
      });
    this.#authorization = url.authorization;
    this.#url = url.url;
  }

  async grab(signal: AbortSignal): Promise<CameraFrame> {
    const { camera, timeoutMs } = this.#options;
    const url = this.#url;
    const unavailable = (reason: string, cause?: unknown): ArmbridgeError =>
      new ArmbridgeError(
        "ARMB_ERR_CAMERA_UNAVAILABLE",
        { camera, source: url, reason },
        cause === undefined ? undefined : { cause },
      );
    const wait = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    let response: Response;
    try {
      response = await fetch(url, {
        signal: wait,
        headers: {
          accept: "image/jpeg, image/png",
          ...(this.#authorization ? { authorization: this.#authorization } : {}),
        },
        redirect: "error",
      });
    } catch (error) {
      throw unavailable(wait.aborted && !signal.aborted ? `no answer within ${timeoutMs} ms` : describe(error), error);
    }
    let bytes: Buffer;
    try {
      if (response.status !== 200) {
        await response.body?.cancel();
        throw unavailable(
          `HTTP ${response.status} ${deviceText("the camera's reason phrase", response.statusText)}${response.status === 401 ? " (the camera wants credentials: http://USER:PASSWORD@host/...; HTTP Basic only)" : ""}`,
        );
      }
      bytes = await readLimited(response, wait);
    } catch (error) {
      if (error instanceof ArmbridgeError) throw error;
      throw unavailable(
        wait.aborted && !signal.aborted
          ? `the image did not arrive within ${timeoutMs} ms`
          : `the connection failed mid-image: ${describe(error)}`,
        error,
      );
    }
    const receivedMs = this.#now();
    const contentType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (contentType !== "" && contentType !== "image/jpeg" && contentType !== "image/png") {
      throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", {
        camera,
        reason: `the server answered ${deviceText("the camera's Content-Type", contentType)}, not image/jpeg or image/png (is this the snapshot URL, not the stream or a web page?)`,
      });
    }
    const image = inspectImage(bytes);
    if (!image.ok) throw new ArmbridgeError("ARMB_ERR_CAMERA_FRAME_INVALID", { camera, reason: image.reason });
    const stamp = captureStamp(response.headers.get("x-timestamp"), receivedMs);
    return {
      camera,
      source: "http",
      format: image.format,
      bytes,
      width: image.width,
      height: image.height,
      capturedAtMs: stamp.ms,
      clock: "wall",
      captureTimeFrom: stamp.from,
      ageMs: Math.max(0, receivedMs - stamp.ms),
      notes: stamp.note ? [stamp.note] : [],
    };
  }

  close(): void {
    // Nothing held between grabs: every snapshot is its own request.
  }
}

function captureStamp(
  header: string | null,
  receivedMs: number,
): { ms: number; from: "x_timestamp" | "received"; note?: string } {
  if (header === null) return { ms: receivedMs, from: "received" };
  const seconds = Number(header.trim());
  if (!Number.isFinite(seconds) || seconds <= 0)
    return {
      ms: receivedMs,
      from: "received",
      note: `X-Timestamp ${deviceText("the camera's X-Timestamp header", header)} is not a number; the receive time is used`,
    };
  if (seconds < EPOCH_FLOOR_S)
    return {
      ms: receivedMs,
      from: "received",
      note: "X-Timestamp is on the camera's monotonic clock (time since boot), not wall time; the receive time is used",
    };
  const ms = seconds * 1000;
  if (ms > receivedMs + FUTURE_TOLERANCE_MS)
    return {
      ms: receivedMs,
      from: "received",
      note: `X-Timestamp is ${Math.round(ms - receivedMs)} ms ahead of this computer's clock (skewed camera clock); the receive time is used`,
    };
  return { ms: Math.min(ms, receivedMs), from: "x_timestamp" };
}

async function readLimited(response: Response, signal: AbortSignal): Promise<Buffer> {
  const body = response.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // fetch's signal also ends the body stream: an abort mid-image throws out of this loop.
  for await (const value of body as AsyncIterable<Uint8Array>) {
    total += value.byteLength;
    if (total > MAX_FRAME_BYTES) {
      await body.cancel().catch(() => undefined);
      throw new Error(`the image is over ${MAX_FRAME_BYTES} bytes`);
    }
    chunks.push(value);
  }
  if (signal.aborted) throw new Error("aborted");
  return Buffer.concat(chunks);
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
