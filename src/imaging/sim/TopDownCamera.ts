import type { SimCameraConfig } from "../../config/sections/simulator.js";

export type Vec3 = readonly [number, number, number];

/**
 * The simulated camera's geometry: an ideal pinhole (no distortion) at
 * `position`, its optical axis straight down (−z of the base frame), square
 * pixels, the principal point at the image centre. With yaw 0 the base
 * frame's +x points to the top of the image and +y to the left, so an arm
 * standing at the origin reaches "up" into the picture.
 *
 * Pixel coordinates are continuous: (0, 0) is the top-left corner of the
 * top-left pixel, whose centre is (0.5, 0.5). Normalised image points are
 * Gemini's: [y, x] scaled to 0–1000 over the height and the width.
 */
export class TopDownCamera {
  readonly width: number;
  readonly height: number;
  readonly #position: Vec3;
  readonly #focalPx: number;
  readonly #cos: number;
  readonly #sin: number;

  constructor(config: Pick<SimCameraConfig, "position" | "yawDeg" | "fovDeg" | "width" | "height">) {
    this.width = config.width;
    this.height = config.height;
    this.#position = config.position;
    this.#focalPx = config.width / 2 / Math.tan(((config.fovDeg / 2) * Math.PI) / 180);
    const yaw = (config.yawDeg * Math.PI) / 180;
    this.#cos = Math.cos(yaw);
    this.#sin = Math.sin(yaw);
  }

  /** Where a base-frame point appears, in pixels (col, row); undefined at or above the camera's height. */
  toPixel(p: Vec3): readonly [number, number] | undefined {
    const depth = this.#position[2] - p[2];
    if (!(depth > 1e-9)) return undefined;
    const dx = p[0] - this.#position[0];
    const dy = p[1] - this.#position[1];
    // Rotate the horizontal offset into the camera's frame: "up" in the image is +x at yaw 0, "right" is −y.
    const up = this.#cos * dx + this.#sin * dy;
    const right = this.#sin * dx - this.#cos * dy;
    return [this.width / 2 + (this.#focalPx * right) / depth, this.height / 2 - (this.#focalPx * up) / depth];
  }

  /** The point of the horizontal plane z = `planeZ` seen at pixel (col, row). */
  fromPixel(col: number, row: number, planeZ: number): readonly [number, number] {
    const depth = this.#position[2] - planeZ;
    const right = ((col - this.width / 2) * depth) / this.#focalPx;
    const up = ((this.height / 2 - row) * depth) / this.#focalPx;
    // Inverse of the rotation in toPixel.
    const dx = this.#cos * up + this.#sin * right;
    const dy = this.#sin * up - this.#cos * right;
    return [this.#position[0] + dx, this.#position[1] + dy];
  }

  /** A base-frame point as Gemini would point at it: [y, x], 0–1000. */
  toNormalised(p: Vec3): readonly [number, number] | undefined {
    const px = this.toPixel(p);
    return px && [(px[1] / this.height) * 1000, (px[0] / this.width) * 1000];
  }

  /** Metres on the plane z = `planeZ` per pixel (the same everywhere for a camera looking straight down). */
  metresPerPixel(planeZ: number): number {
    return (this.#position[2] - planeZ) / this.#focalPx;
  }
}
