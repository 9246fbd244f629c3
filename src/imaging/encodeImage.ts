import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import type { RawImage } from "./sim/renderScene.js";

export type ImageFormat = "jpeg" | "png";

export const MIME_TYPES = { jpeg: "image/jpeg", png: "image/png" } as const satisfies Readonly<
  Record<ImageFormat, string>
>;

/** RGBA → JPEG (jpeg-js, baseline) or PNG (pngjs, lossless). */
export function encodeImage(image: RawImage, format: ImageFormat, jpegQuality = 90): Buffer {
  switch (format) {
    case "jpeg":
      return jpeg.encode({ width: image.width, height: image.height, data: image.data }, jpegQuality).data;
    case "png": {
      const png = new PNG({ width: image.width, height: image.height });
      image.data.copy(png.data);
      return PNG.sync.write(png);
    }
  }
}

/** JPEG or PNG → RGBA, for tests and for reading a frame's pixels back. */
export function decodeImage(bytes: Buffer): RawImage {
  if (bytes[0] === 0x89) {
    const png = PNG.sync.read(bytes);
    return { width: png.width, height: png.height, data: png.data };
  }
  const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  return {
    width: img.width,
    height: img.height,
    data: Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength),
  };
}
