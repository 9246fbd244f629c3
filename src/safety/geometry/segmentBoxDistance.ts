/**
 * Distance from segment p0 → p1 to the axis-aligned box [lo, hi] (0 when
 * they meet). The squared distance from P(t) to the box is a sum over axes
 * of a clamped square, each piecewise quadratic in t with breaks where P(t)
 * crosses a face plane; between breaks it is one convex quadratic, minimised
 * in closed form. Exact, with at most seven pieces. `out`, when given,
 * receives the closest point of the segment and its parameter t (4 numbers).
 *
 * The same function measures a capsule against a keep-out box (minus the
 * radius) and, in a box's own frame, a capsule against an oriented box.
 */
export function segmentBoxDistance(
  p0x: number,
  p0y: number,
  p0z: number,
  p1x: number,
  p1y: number,
  p1z: number,
  lox: number,
  loy: number,
  loz: number,
  hix: number,
  hiy: number,
  hiz: number,
  out?: Float64Array,
): number {
  const dx = p1x - p0x,
    dy = p1y - p0y,
    dz = p1z - p0z;
  // Break points in (0, 1): where a coordinate crosses a face plane.
  const breaks = BREAKS;
  let n = 0;
  breaks[n++] = 0;
  n = addCrossing(breaks, n, p0x, dx, lox);
  n = addCrossing(breaks, n, p0x, dx, hix);
  n = addCrossing(breaks, n, p0y, dy, loy);
  n = addCrossing(breaks, n, p0y, dy, hiy);
  n = addCrossing(breaks, n, p0z, dz, loz);
  n = addCrossing(breaks, n, p0z, dz, hiz);
  breaks[n++] = 1;
  sortPrefix(breaks, n);

  let best = Infinity,
    bestT = 0;
  for (let i = 0; i + 1 < n; i++) {
    const t0 = breaks[i] ?? 0,
      t1 = breaks[i + 1] ?? 1;
    const tm = (t0 + t1) / 2;
    // On this piece each axis is below, inside or above its slab: sum of (c + t·d)² over the axes outside.
    let num = 0,
      den = 0;
    const x = p0x + tm * dx,
      y = p0y + tm * dy,
      z = p0z + tm * dz;
    if (x < lox) {
      num += (p0x - lox) * dx;
      den += dx * dx;
    } else if (x > hix) {
      num += (p0x - hix) * dx;
      den += dx * dx;
    }
    if (y < loy) {
      num += (p0y - loy) * dy;
      den += dy * dy;
    } else if (y > hiy) {
      num += (p0y - hiy) * dy;
      den += dy * dy;
    }
    if (z < loz) {
      num += (p0z - loz) * dz;
      den += dz * dz;
    } else if (z > hiz) {
      num += (p0z - hiz) * dz;
      den += dz * dz;
    }
    let t = den > 0 ? -num / den : t0;
    t = t < t0 ? t0 : t > t1 ? t1 : t;
    const d2 = pointBoxDistanceSquared(p0x + t * dx, p0y + t * dy, p0z + t * dz, lox, loy, loz, hix, hiy, hiz);
    if (d2 < best) {
      best = d2;
      bestT = t;
    }
  }
  if (out) {
    out[0] = p0x + bestT * dx;
    out[1] = p0y + bestT * dy;
    out[2] = p0z + bestT * dz;
    out[3] = bestT;
  }
  return Math.sqrt(best);
}

/** Squared distance from a point to the box [lo, hi] (0 inside). */
export function pointBoxDistanceSquared(
  x: number,
  y: number,
  z: number,
  lox: number,
  loy: number,
  loz: number,
  hix: number,
  hiy: number,
  hiz: number,
): number {
  const ex = x < lox ? lox - x : x > hix ? x - hix : 0;
  const ey = y < loy ? loy - y : y > hiy ? y - hiy : 0;
  const ez = z < loz ? loz - z : z > hiz ? z - hiz : 0;
  return ex * ex + ey * ey + ez * ez;
}

const BREAKS = new Float64Array(8);

function addCrossing(breaks: Float64Array, n: number, p: number, d: number, plane: number): number {
  if (d === 0) return n;
  const t = (plane - p) / d;
  if (t > 0 && t < 1) breaks[n++] = t;
  return n;
}

/** Insertion sort of the first n entries (n ≤ 8). */
function sortPrefix(a: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const v = a[i] ?? 0;
    let j = i - 1;
    while (j >= 0 && (a[j] ?? 0) > v) {
      a[j + 1] = a[j] ?? 0;
      j--;
    }
    a[j + 1] = v;
  }
}
