import type { TableCalibration } from "../config/sections/cameras.js";
import { applyHomography, homogeneousW } from "../geometry/fitHomography.js";

/**
 * A Gemini image point ([y, x], 0–1000) → the table point it shows (base
 * frame x, y, and the table's z), through the camera's fitted homography.
 * A point whose homogeneous w has the other sign from the calibration
 * points' lies beyond the table plane's horizon in this view (above it, on a
 * tilted camera): no table point is seen there.
 */
export function imagePointToTable(
  calibration: TableCalibration,
  point: readonly [number, number],
): { ok: true; table: readonly [number, number, number]; extrapolated: boolean } | { ok: false; reason: string } {
  const uv = [point[1], point[0]] as const;
  const h = calibration.homography;
  const first = calibration.points[0];
  const side = first ? Math.sign(homogeneousW(h, [first.image[1], first.image[0]])) : 1;
  if (Math.sign(homogeneousW(h, uv)) !== side)
    return { ok: false, reason: "it lies beyond the table's horizon in this view (no table point is seen there)" };
  const mapped = applyHomography(h, uv);
  if (!mapped || !mapped.every(Number.isFinite)) return { ok: false, reason: "it maps to infinity" };
  return {
    ok: true,
    table: [mapped[0], mapped[1], calibration.z],
    extrapolated: !insideHull(
      calibration.points.map((p) => p.image),
      point,
    ),
  };
}

/**
 * Is `p` inside the convex hull of the calibration's image points? Outside
 * it the homography extrapolates, and measuring errors grow with the
 * distance (Andrew's monotone chain, then a same-side test on every edge).
 */
function insideHull(points: readonly (readonly [number, number])[], p: readonly [number, number]): boolean {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: readonly [number, number], a: readonly [number, number], b: readonly [number, number]): number =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (pts: (readonly [number, number])[]): (readonly [number, number])[] => {
    const out: (readonly [number, number])[] = [];
    for (const q of pts) {
      while (
        out.length >= 2 &&
        cross(out[out.length - 2] as readonly [number, number], out[out.length - 1] as readonly [number, number], q) <=
          0
      )
        out.pop();
      out.push(q);
    }
    out.pop();
    return out;
  };
  const hull = [...half(sorted), ...half([...sorted].reverse())];
  if (hull.length < 3) return false;
  for (let i = 0; i < hull.length; i++) {
    if (
      cross(hull[i] as readonly [number, number], hull[(i + 1) % hull.length] as readonly [number, number], p) < -1e-9
    )
      return false;
  }
  return true;
}
