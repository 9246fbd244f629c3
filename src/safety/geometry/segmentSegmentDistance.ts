/**
 * Distance between segment P (p0 → p1) and segment Q (q0 → q1), the core of
 * every capsule–capsule test: two capsules are apart by this minus their
 * radii. Standard closest-point construction (the minimum of the convex
 * quadratic |P(s) − Q(t)|² over [0,1]², clamped edge by edge; Ericson,
 * "Real-Time Collision Detection", §5.1.9). A degenerate segment (a sphere's
 * centre) is a point. `out`, when given, receives the closest points
 * (P's then Q's, 6 numbers).
 */
export function segmentSegmentDistance(
  p0x: number,
  p0y: number,
  p0z: number,
  p1x: number,
  p1y: number,
  p1z: number,
  q0x: number,
  q0y: number,
  q0z: number,
  q1x: number,
  q1y: number,
  q1z: number,
  out?: Float64Array,
): number {
  const d1x = p1x - p0x,
    d1y = p1y - p0y,
    d1z = p1z - p0z;
  const d2x = q1x - q0x,
    d2y = q1y - q0y,
    d2z = q1z - q0z;
  const rx = p0x - q0x,
    ry = p0y - q0y,
    rz = p0z - q0z;
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  let s = 0,
    t = 0;
  const EPS = 1e-18;
  if (a <= EPS && e <= EPS) {
    s = t = 0;
  } else if (a <= EPS) {
    t = clamp01(f / e);
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (e <= EPS) {
      s = clamp01(-c / a);
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = a * e - b * b;
      // Parallel segments (denom 0): any s works for the infinite lines; start from 0 and let the clamps decide.
      s = denom > EPS * Math.max(1, a * e) ? clamp01((b * f - c * e) / denom) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
      }
    }
  }
  const cx = p0x + d1x * s,
    cy = p0y + d1y * s,
    cz = p0z + d1z * s;
  const ex = q0x + d2x * t,
    ey = q0y + d2y * t,
    ez = q0z + d2z * t;
  if (out) {
    out[0] = cx;
    out[1] = cy;
    out[2] = cz;
    out[3] = ex;
    out[4] = ey;
    out[5] = ez;
  }
  return Math.hypot(cx - ex, cy - ey, cz - ez);
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
