import type { TableCalibration } from "../config/cameraConfig.js";
import { applyHomography, homogeneousW } from "./fitHomography.js";

/**
 * A Gemini image point ([y, x], 0–1000) → the table point it shows (base
 * frame x, y, and the table's z), through the camera's fitted homography.
 * A point whose homogeneous w has the other sign from the calibration
 * points' lies beyond the table plane's horizon in this view (above it, on a
 * tilted camera): no table point is seen there.
 */
export function imagePointToTable(calibration: TableCalibration, point: readonly [number, number]): { ok: true; table: readonly [number, number, number] } | { ok: false; reason: string } {
  const uv = [point[1], point[0]] as const;
  const h = calibration.homography;
  const first = calibration.points[0];
  const side = first ? Math.sign(homogeneousW(h, [first.image[1], first.image[0]])) : 1;
  if (Math.sign(homogeneousW(h, uv)) !== side) return { ok: false, reason: "it lies beyond the table's horizon in this view (no table point is seen there)" };
  const mapped = applyHomography(h, uv);
  if (!mapped || !mapped.every(Number.isFinite)) return { ok: false, reason: "it maps to infinity" };
  return { ok: true, table: [mapped[0], mapped[1], calibration.z] };
}
