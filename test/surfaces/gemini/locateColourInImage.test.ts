import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { locateColourInImage } from "../../../src/surfaces/gemini/locateColourInImage.js";

const RED = [220, 30, 30] as const;

/** A grey table with a red block covering x in [x0, x1) and y in [y0, y1), and one stray red pixel. */
function picture(
  width: number,
  height: number,
  block: { x0: number; x1: number; y0: number; y1: number },
): { width: number; height: number; data: Buffer } {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inBlock = x >= block.x0 && x < block.x1 && y >= block.y0 && y < block.y1;
      const stray = x === width - 3 && y === 2;
      const [r, g, b] = inBlock || stray ? RED : [150, 150, 150];
      data.set([r, g, b, 255], 4 * (y * width + x));
    }
  }
  return { width, height, data };
}

describe("locateColourInImage", () => {
  it("gives the largest blob's centroid as [y, x] normalised to 0–1000 (PNG), ignoring a stray pixel", () => {
    const img = picture(200, 100, { x0: 40, x1: 60, y0: 20, y1: 30 });
    const png = new PNG({ width: img.width, height: img.height });
    img.data.copy(png.data);
    const found = locateColourInImage(PNG.sync.write(png), RED)!;
    // Centroid x = 50 px of 200 -> 250; y = 25 px of 100 -> 250.
    expect(found).toMatchObject({ point: [250, 250], pixels: 200, width: 200, height: 100 });
    expect(found.centroidPx).toEqual({ x: 50, y: 25 });
  });

  it("finds it in a lossy JPEG too, and says undefined when the colour is absent", () => {
    const img = picture(320, 240, { x0: 200, x1: 240, y0: 60, y1: 100 });
    const bytes = Buffer.from(jpeg.encode({ width: img.width, height: img.height, data: img.data }, 85).data);
    const found = locateColourInImage(bytes, RED)!;
    expect(Math.abs(found.point[0] - 333)).toBeLessThanOrEqual(2); // y 80/240
    expect(Math.abs(found.point[1] - 688)).toBeLessThanOrEqual(2); // x 220/320
    expect(locateColourInImage(bytes, [30, 70, 220])).toBeUndefined();
  });
});
