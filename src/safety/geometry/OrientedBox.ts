import { segmentBoxDistance } from "./segmentBoxDistance.js";

/**
 * Oriented boxes in a flat Float64Array, 15 numbers from `o`: centre (3),
 * the three unit axes (3 each), the three half extents. An axis-aligned box
 * is one with the identity's axes. Flat so the envelope check writes them per
 * sample without allocating.
 */
export const BOX_STRIDE = 15;

export function writeAxisAlignedBox(
  out: Float64Array,
  o: number,
  min: readonly number[],
  max: readonly number[],
): void {
  out[o] = ((min[0] ?? 0) + (max[0] ?? 0)) / 2;
  out[o + 1] = ((min[1] ?? 0) + (max[1] ?? 0)) / 2;
  out[o + 2] = ((min[2] ?? 0) + (max[2] ?? 0)) / 2;
  out.set([1, 0, 0, 0, 1, 0, 0, 0, 1], o + 3);
  out[o + 12] = ((max[0] ?? 0) - (min[0] ?? 0)) / 2;
  out[o + 13] = ((max[1] ?? 0) - (min[1] ?? 0)) / 2;
  out[o + 14] = ((max[2] ?? 0) - (min[2] ?? 0)) / 2;
}

/** How far the box reaches from its centre along world axis `axis` (0 x, 1 y, 2 z). */
export function boxExtentAlong(b: Float64Array, o: number, axis: number): number {
  return (
    Math.abs(b[o + 3 + axis] ?? 0) * (b[o + 12] ?? 0) +
    Math.abs(b[o + 6 + axis] ?? 0) * (b[o + 13] ?? 0) +
    Math.abs(b[o + 9 + axis] ?? 0) * (b[o + 14] ?? 0)
  );
}

/**
 * A lower bound on the distance between two oriented boxes, exact in sign:
 * the largest gap between their projections on the 15 separating-axis
 * candidates (each box's faces and the cross products of their edges;
 * Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH 1996). Positive: they are at
 * least that far apart (a gap along any unit axis never exceeds the
 * distance). Zero or negative: they overlap.
 */
export function boxBoxSeparation(a: Float64Array, ao: number, b: Float64Array, bo: number): number {
  const R = ROT,
    AR = ABS_ROT,
    T = T_LOCAL;
  // R[3i + j] = A_i · B_j: B's axes in A's frame; T: B's centre in A's frame.
  const dx = (b[bo] ?? 0) - (a[ao] ?? 0),
    dy = (b[bo + 1] ?? 0) - (a[ao + 1] ?? 0),
    dz = (b[bo + 2] ?? 0) - (a[ao + 2] ?? 0);
  for (let i = 0; i < 3; i++) {
    const ax = a[ao + 3 + 3 * i] ?? 0,
      ay = a[ao + 4 + 3 * i] ?? 0,
      az = a[ao + 5 + 3 * i] ?? 0;
    T[i] = ax * dx + ay * dy + az * dz;
    for (let j = 0; j < 3; j++) {
      const r = ax * (b[bo + 3 + 3 * j] ?? 0) + ay * (b[bo + 4 + 3 * j] ?? 0) + az * (b[bo + 5 + 3 * j] ?? 0);
      R[3 * i + j] = r;
      AR[3 * i + j] = Math.abs(r);
    }
  }
  const a0 = a[ao + 12] ?? 0,
    a1 = a[ao + 13] ?? 0,
    a2 = a[ao + 14] ?? 0;
  const b0 = b[bo + 12] ?? 0,
    b1 = b[bo + 13] ?? 0,
    b2 = b[bo + 14] ?? 0;
  const t0 = T[0] ?? 0,
    t1 = T[1] ?? 0,
    t2 = T[2] ?? 0;
  let best = -Infinity;
  // A's face normals.
  best = Math.max(best, Math.abs(t0) - a0 - (b0 * q(0, 0) + b1 * q(0, 1) + b2 * q(0, 2)));
  best = Math.max(best, Math.abs(t1) - a1 - (b0 * q(1, 0) + b1 * q(1, 1) + b2 * q(1, 2)));
  best = Math.max(best, Math.abs(t2) - a2 - (b0 * q(2, 0) + b1 * q(2, 1) + b2 * q(2, 2)));
  // B's face normals.
  for (let j = 0; j < 3; j++) {
    const bj = j === 0 ? b0 : j === 1 ? b1 : b2;
    best = Math.max(
      best,
      Math.abs(t0 * r(0, j) + t1 * r(1, j) + t2 * r(2, j)) - (a0 * q(0, j) + a1 * q(1, j) + a2 * q(2, j)) - bj,
    );
  }
  // Edge × edge: L = A_i × B_j, whose length is √(1 − R_ij²); each gap is divided by it to be a distance.
  for (let j = 0; j < 3; j++) {
    const j1 = (j + 1) % 3,
      j2 = (j + 2) % 3;
    const bj1 = j1 === 0 ? b0 : j1 === 1 ? b1 : b2,
      bj2 = j2 === 0 ? b0 : j2 === 1 ? b1 : b2;
    for (let i = 0; i < 3; i++) {
      const i1 = (i + 1) % 3,
        i2 = (i + 2) % 3;
      const len = Math.sqrt(Math.max(0, 1 - q(i, j) * q(i, j)));
      // Nearly parallel edges: the face normals already cover that direction, and dividing by a tiny length would amplify rounding.
      if (len < 1e-3) continue;
      const ai1 = i1 === 0 ? a0 : i1 === 1 ? a1 : a2,
        ai2 = i2 === 0 ? a0 : i2 === 1 ? a1 : a2;
      const ti1 = i1 === 0 ? t0 : i1 === 1 ? t1 : t2,
        ti2 = i2 === 0 ? t0 : i2 === 1 ? t1 : t2;
      const ra = ai1 * q(i2, j) + ai2 * q(i1, j);
      const rb = bj1 * q(i, j2) + bj2 * q(i, j1);
      const gap = (Math.abs(ti2 * r(i1, j) - ti1 * r(i2, j)) - ra - rb) / len;
      if (gap > best) best = gap;
    }
  }
  return best;
}

const ROT = new Float64Array(9);
const ABS_ROT = new Float64Array(9);
const T_LOCAL = new Float64Array(3);

function r(i: number, j: number): number {
  return ROT[3 * i + j] ?? 0;
}

function q(i: number, j: number): number {
  return ABS_ROT[3 * i + j] ?? 0;
}

const LOCAL = new Float64Array(4);

/**
 * Distance from segment p0 → p1 to an oriented box (0 when they meet):
 * the segment in the box's frame against the box as an axis-aligned one.
 * `out` receives the closest point of the segment (world frame) and its t.
 */
export function segmentOrientedBoxDistance(
  p0x: number,
  p0y: number,
  p0z: number,
  p1x: number,
  p1y: number,
  p1z: number,
  b: Float64Array,
  o: number,
  out?: Float64Array,
): number {
  const cx = b[o] ?? 0,
    cy = b[o + 1] ?? 0,
    cz = b[o + 2] ?? 0;
  const ux = b[o + 3] ?? 0,
    uy = b[o + 4] ?? 0,
    uz = b[o + 5] ?? 0;
  const vx = b[o + 6] ?? 0,
    vy = b[o + 7] ?? 0,
    vz = b[o + 8] ?? 0;
  const wx = b[o + 9] ?? 0,
    wy = b[o + 10] ?? 0,
    wz = b[o + 11] ?? 0;
  const hx = b[o + 12] ?? 0,
    hy = b[o + 13] ?? 0,
    hz = b[o + 14] ?? 0;
  // Both ends in the box's own frame.
  const ax = p0x - cx,
    ay = p0y - cy,
    az = p0z - cz,
    bx = p1x - cx,
    by = p1y - cy,
    bz = p1z - cz;
  const d = segmentBoxDistance(
    ux * ax + uy * ay + uz * az,
    vx * ax + vy * ay + vz * az,
    wx * ax + wy * ay + wz * az,
    ux * bx + uy * by + uz * bz,
    vx * bx + vy * by + vz * bz,
    wx * bx + wy * by + wz * bz,
    -hx,
    -hy,
    -hz,
    hx,
    hy,
    hz,
    LOCAL,
  );
  if (out) {
    const t = LOCAL[3] ?? 0;
    out[0] = p0x + t * (p1x - p0x);
    out[1] = p0y + t * (p1y - p0y);
    out[2] = p0z + t * (p1z - p0z);
    out[3] = t;
  }
  return d;
}
