/**
 * A lower bound, within 1e-9 m, on the distance from segment p0 → p1 to a
 * vertical solid cylinder (axis through (cx, cy), radius r, from zMin to
 * zMax); 0 when they meet. The distance to a convex set is a convex function
 * of the point, so along the segment it is convex in t: a golden-section
 * search brackets the minimum, and since the point moves |p1 − p0| per unit
 * t and the distance is 1-Lipschitz in the point, the value at the best
 * point found minus |p1 − p0| × the final bracket width can only be below
 * the true minimum. `out` receives the closest segment point found and its t.
 */
export function segmentCylinderDistance(
  p0x: number,
  p0y: number,
  p0z: number,
  p1x: number,
  p1y: number,
  p1z: number,
  cx: number,
  cy: number,
  r: number,
  zMin: number,
  zMax: number,
  out?: Float64Array,
): number {
  const dx = p1x - p0x,
    dy = p1y - p0y,
    dz = p1z - p0z;
  const at = (t: number): number =>
    pointCylinderDistance(p0x + t * dx, p0y + t * dy, p0z + t * dz, cx, cy, r, zMin, zMax);
  const length = Math.hypot(dx, dy, dz);
  let lo = 0,
    hi = 1;
  let bestT = 0,
    best = at(0);
  const end = at(1);
  if (end < best) {
    best = end;
    bestT = 1;
  }
  if (length > 0 && best > 0) {
    const g = (Math.sqrt(5) - 1) / 2;
    let m1 = hi - g * (hi - lo),
      m2 = lo + g * (hi - lo);
    let f1 = at(m1),
      f2 = at(m2);
    while ((hi - lo) * length > 1e-10) {
      if (f1 <= f2) {
        hi = m2;
        m2 = m1;
        f2 = f1;
        m1 = hi - g * (hi - lo);
        f1 = at(m1);
      } else {
        lo = m1;
        m1 = m2;
        f1 = f2;
        m2 = lo + g * (hi - lo);
        f2 = at(m2);
      }
    }
    if (f1 < best) {
      best = f1;
      bestT = m1;
    }
    if (f2 < best) {
      best = f2;
      bestT = m2;
    }
    best = Math.max(0, best - (hi - lo) * length);
  }
  if (out) {
    out[0] = p0x + bestT * dx;
    out[1] = p0y + bestT * dy;
    out[2] = p0z + bestT * dz;
    out[3] = bestT;
  }
  return best;
}

export function pointCylinderDistance(
  x: number,
  y: number,
  z: number,
  cx: number,
  cy: number,
  r: number,
  zMin: number,
  zMax: number,
): number {
  const radial = Math.max(0, Math.hypot(x - cx, y - cy) - r);
  const axial = z < zMin ? zMin - z : z > zMax ? z - zMax : 0;
  return Math.hypot(radial, axial);
}
