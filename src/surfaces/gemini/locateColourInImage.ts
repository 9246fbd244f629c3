import jpeg from "jpeg-js";
import { PNG } from "pngjs";

/** Where a colour was found in an image, in Gemini Robotics-ER's pointing convention. */
export interface ColourLocation {
  /** `[y, x]`, each normalised to 0–1000 of the image's height and width (integers, as the model writes them). */
  readonly point: readonly [number, number];
  /** The blob's centroid in pixels (continuous coordinates: pixel c covers [c, c+1)). */
  readonly centroidPx: { readonly x: number; readonly y: number };
  readonly pixels: number;
  readonly width: number;
  readonly height: number;
}

/** How far (Euclidean, in 0–255 RGB) a pixel may be from the colour: JPEG and anti-aliasing blur the edges, not the middle. */
const DEFAULT_TOLERANCE = 60;

interface Rgba {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** Decodes a PNG or JPEG (by its signature) to RGBA. */
export function decodeImage(bytes: Buffer): Rgba {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47) {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
    return { width: img.width, height: img.height, data: img.data };
  }
  throw new RangeError("the image is neither a PNG nor a JPEG");
}

/**
 * Finds the largest 4-connected blob of pixels near `rgb` and returns its
 * centroid as a point `[y, x]` normalised to 0–1000 — the form Gemini
 * Robotics-ER answers in ("The points are in [y, x] format normalized to
 * 0-1000", https://ai.google.dev/gemini-api/docs/robotics-spatial). The
 * largest blob, not every matching pixel, so a stray pixel of the same hue
 * elsewhere (an edge, the gripper's shadow) cannot pull the point off the
 * object. Undefined when nothing matches.
 */
export function locateColourInImage(
  bytes: Buffer,
  rgb: readonly [number, number, number],
  tolerance = DEFAULT_TOLERANCE,
): ColourLocation | undefined {
  const { width, height, data } = decodeImage(bytes);
  const limit = tolerance * tolerance;
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    const dr = (data[4 * i] ?? 0) - rgb[0];
    const dg = (data[4 * i + 1] ?? 0) - rgb[1];
    const db = (data[4 * i + 2] ?? 0) - rgb[2];
    if (dr * dr + dg * dg + db * db <= limit) mask[i] = 1;
  }
  let best: { n: number; sx: number; sy: number } | undefined;
  const stack: number[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (mask[start] !== 1) continue;
    mask[start] = 2;
    stack.push(start);
    let n = 0;
    let sx = 0;
    let sy = 0;
    while (stack.length > 0) {
      const i = stack.pop() as number;
      const x = i % width;
      const y = (i - x) / width;
      n++;
      sx += x;
      sy += y;
      const visit = (j: number): void => {
        if (mask[j] === 1) {
          mask[j] = 2;
          stack.push(j);
        }
      };
      if (x > 0) visit(i - 1);
      if (x < width - 1) visit(i + 1);
      if (y > 0) visit(i - width);
      if (y < height - 1) visit(i + width);
    }
    if (!best || n > best.n) best = { n, sx, sy };
  }
  if (!best) return undefined;
  const cx = best.sx / best.n + 0.5;
  const cy = best.sy / best.n + 0.5;
  return {
    point: [Math.round((1000 * cy) / height), Math.round((1000 * cx) / width)],
    centroidPx: { x: cx, y: cy },
    pixels: best.n,
    width,
    height,
  };
}
