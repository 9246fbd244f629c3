import { describe, expect, it } from "vitest";
import { decodeImage, encodeImage } from "../../../src/imaging/encodeImage.js";
import {
  STREAM_FRAME_MAX_BYTES,
  STREAM_FRAME_MAX_SIDE,
  streamFrame,
} from "../../../src/surfaces/gemini/streamFrame.js";

/** A test card: a horizontal gradient with a white square near the top left. */
function card(width: number, height: number): { width: number; height: number; data: Buffer } {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const inSquare = x >= width / 8 && x < width / 4 && y >= height / 8 && y < height / 4;
      data[i] = inSquare ? 255 : Math.round((255 * x) / width);
      data[i + 1] = inSquare ? 255 : 64;
      data[i + 2] = inSquare ? 255 : 128;
      data[i + 3] = 255;
    }
  return { width, height, data };
}

describe("streamFrame: a camera frame as bounded realtime video input", () => {
  it("a JPEG already within bounds goes as it is, byte for byte", () => {
    const jpeg = encodeImage(card(640, 480), "jpeg", 85);
    const f = streamFrame(jpeg, "image/jpeg")!;
    expect(f.bytes).toBe(jpeg);
    expect(f).toMatchObject({ mimeType: "image/jpeg", width: 640, height: 480 });
  });

  it("a large PNG becomes a JPEG at most 768 px on its longer side, the picture kept", () => {
    const png = encodeImage(card(1920, 1080), "png");
    const f = streamFrame(png, "image/png")!;
    expect(f.mimeType).toBe("image/jpeg");
    expect(f.bytes.length).toBeLessThanOrEqual(STREAM_FRAME_MAX_BYTES);
    expect(Math.max(f.width, f.height)).toBeLessThanOrEqual(STREAM_FRAME_MAX_SIDE);
    expect([f.width, f.height]).toEqual([640, 360]);
    const back = decodeImage(f.bytes);
    const at = (x: number, y: number): number => back.data[(y * back.width + x) * 4] ?? 0;
    // The white square survives the shrink; the gradient still rises left to right.
    expect(at(Math.round(f.width * 0.19), Math.round(f.height * 0.19))).toBeGreaterThan(230);
    expect(at(f.width - 5, f.height - 5)).toBeGreaterThan(at(5, f.height - 5) + 150);
  });
});
