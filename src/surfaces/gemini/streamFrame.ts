import { decodeImage, encodeImage } from "../../imaging/encodeImage.js";
import { inspectImage } from "../../cameras/inspectImage.js";
import type { RawImage } from "../../imaging/sim/renderScene.js";

/**
 * Bounds on one realtime video frame. The Gemini API counts an image up to
 * 384 px on both sides as 258 tokens and tiles a larger one into 768×768
 * tiles of 258 tokens each (ai.google.dev/gemini-api/docs/image-understanding,
 * "Technical details"): 768 px on the longer side keeps a frame at a few
 * tiles, and the byte cap keeps one frame from crowding the socket that
 * also carries the tool calls.
 */
export const STREAM_FRAME_MAX_SIDE = 768;
export const STREAM_FRAME_MAX_BYTES = 256 * 1024;
const QUALITIES = [80, 60, 40] as const;

export interface StreamFrame {
  readonly mimeType: "image/jpeg";
  readonly bytes: Buffer;
  readonly width: number;
  readonly height: number;
}

/**
 * A camera frame as realtime video input: JPEG, its longer side at most
 * STREAM_FRAME_MAX_SIDE (box-averaged down by a whole factor), at most
 * STREAM_FRAME_MAX_BYTES (lower JPEG quality until it fits). A JPEG already
 * within both bounds goes as it is. Undefined when no quality fits.
 */
export function streamFrame(bytes: Buffer, mimeType: string): StreamFrame | undefined {
  // The size from the header: decoding a JPEG only to learn it fits would cost more than sending it.
  const header = inspectImage(bytes);
  if (
    header.ok &&
    header.format === "jpeg" &&
    mimeType === "image/jpeg" &&
    Math.max(header.width, header.height) <= STREAM_FRAME_MAX_SIDE &&
    bytes.length <= STREAM_FRAME_MAX_BYTES
  ) {
    return { mimeType: "image/jpeg", bytes, width: header.width, height: header.height };
  }
  const image = decodeImage(bytes);
  const factor = Math.ceil(Math.max(image.width, image.height) / STREAM_FRAME_MAX_SIDE);
  const small = factor <= 1 ? image : shrink(image, factor);
  for (const q of QUALITIES) {
    const jpeg = encodeImage(small, "jpeg", q);
    if (jpeg.length <= STREAM_FRAME_MAX_BYTES)
      return { mimeType: "image/jpeg", bytes: jpeg, width: small.width, height: small.height };
  }
  return undefined;
}

/** RGBA, each output pixel the mean of a factor×factor block (edge blocks are partial). */
function shrink(image: RawImage, factor: number): RawImage {
  const width = Math.ceil(image.width / factor);
  const height = Math.ceil(image.height / factor);
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sum = [0, 0, 0, 0];
      let n = 0;
      for (let dy = 0; dy < factor && y * factor + dy < image.height; dy++) {
        for (let dx = 0; dx < factor && x * factor + dx < image.width; dx++) {
          const i = ((y * factor + dy) * image.width + (x * factor + dx)) * 4;
          for (let c = 0; c < 4; c++) sum[c] = (sum[c] ?? 0) + (image.data[i + c] ?? 0);
          n++;
        }
      }
      const o = (y * width + x) * 4;
      for (let c = 0; c < 4; c++) data[o + c] = Math.round((sum[c] ?? 0) / n);
    }
  }
  return { width, height, data };
}
