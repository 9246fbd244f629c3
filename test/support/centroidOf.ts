import type { RawImage } from "../../src/imaging/sim/renderScene.js";

/** Centroid (normalised [y, x], 0–1000) of the pixels within `tolerance` (sum of |ΔRGB|) of this colour. */
export function centroidOf(
  image: RawImage,
  rgb: readonly [number, number, number],
  tolerance = 0,
): { point: [number, number]; pixels: number } {
  let sumRow = 0;
  let sumCol = 0;
  let n = 0;
  for (let row = 0; row < image.height; row++) {
    for (let col = 0; col < image.width; col++) {
      const i = (row * image.width + col) * 4;
      const d =
        Math.abs((image.data[i] ?? 0) - rgb[0]) +
        Math.abs((image.data[i + 1] ?? 0) - rgb[1]) +
        Math.abs((image.data[i + 2] ?? 0) - rgb[2]);
      if (d <= tolerance) {
        sumRow += row + 0.5;
        sumCol += col + 0.5;
        n++;
      }
    }
  }
  return { point: [(sumRow / n / image.height) * 1000, (sumCol / n / image.width) * 1000], pixels: n };
}
