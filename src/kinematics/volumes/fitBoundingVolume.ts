import { EigenvalueDecomposition, Matrix } from "ml-matrix";
import type { Vec3, VolumeShape } from "./VolumeShape.js";
import { shapeVolume } from "./VolumeShape.js";

export interface FitOptions {
  /** Added to the radius (capsule) or every half extent (box): sampling margins, the radius of points that are balls. */
  readonly grow?: number;
  /** Only this kind; default: whichever of the two bounds encloses less volume. */
  readonly kind?: "capsule" | "box";
}

/**
 * A capsule or box that contains every point (and so their convex hull: a
 * mesh, or a set of swept volumes' core points), grown by `grow`. Candidate
 * axes are the principal axes of the points and the axes of their own frame
 * (meshes are usually drawn along them); the candidate with the least volume
 * wins. Containment is exact by construction, whichever axis is chosen: the
 * radius is the largest distance from the axis, and each end of the capsule's
 * segment is pushed out until its cap covers every point beyond it.
 */
export function fitBoundingVolume(points: readonly Vec3[], options: FitOptions = {}): VolumeShape {
  if (points.length === 0) throw new RangeError("no points to bound");
  const grow = options.grow ?? 0;
  const triples = candidateFrames(points);
  let best: VolumeShape | undefined;
  let bestVolume = Infinity;
  const consider = (s: VolumeShape): void => {
    const v = shapeVolume(s);
    if (v < bestVolume) {
      best = s;
      bestVolume = v;
    }
  };
  for (const frame of triples) {
    if (options.kind !== "capsule") consider(boundingBox(points, frame, grow));
    if (options.kind !== "box") for (let i = 0; i < 3; i++) consider(boundingCapsule(points, frame, i, grow));
  }
  if (!best) throw new RangeError("no bounding volume");
  return best;
}

type Frame = readonly [Vec3, Vec3, Vec3];

function candidateFrames(points: readonly Vec3[]): Frame[] {
  const frames: Frame[] = [
    [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ],
  ];
  if (points.length < 2) return frames;
  const c = centroid(points);
  const cov = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (const p of points) {
    const d = [p[0] - c[0], p[1] - c[1], p[2] - c[2]];
    for (let i = 0; i < 3; i++) {
      const row = cov[i] ?? [];
      for (let j = 0; j < 3; j++) row[j] = (row[j] ?? 0) + (d[i] ?? 0) * (d[j] ?? 0);
    }
  }
  const eig = new EigenvalueDecomposition(new Matrix(cov), { assumeSymmetric: true });
  const vectors = eig.eigenvectorMatrix;
  const axis = (k: number): Vec3 => normalise([vectors.get(0, k), vectors.get(1, k), vectors.get(2, k)]);
  const u = axis(0),
    v = axis(1);
  // Rebuild the third axis by a cross product: an orthonormal, right-handed frame whatever the solver returned.
  const w = normalise(cross(u, v));
  if ([u, v, w].every((a) => a.every(Number.isFinite))) frames.push([u, normalise(cross(w, u)), w]);
  return frames;
}

function boundingBox(points: readonly Vec3[], frame: Frame, grow: number): VolumeShape {
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (const p of points) {
    for (let i = 0; i < 3; i++) {
      const x = dot(p, frame[i] ?? [0, 0, 0]);
      if (x < (lo[i] ?? 0)) lo[i] = x;
      if (x > (hi[i] ?? 0)) hi[i] = x;
    }
  }
  const mid = [0, 1, 2].map((i) => ((lo[i] ?? 0) + (hi[i] ?? 0)) / 2);
  const center = combine(frame, mid);
  const half: Vec3 = [
    ((hi[0] ?? 0) - (lo[0] ?? 0)) / 2 + grow,
    ((hi[1] ?? 0) - (lo[1] ?? 0)) / 2 + grow,
    ((hi[2] ?? 0) - (lo[2] ?? 0)) / 2 + grow,
  ];
  return { kind: "box", center, axes: frame, half };
}

/** The capsule along frame axis `i`, its line through the middle of the points' extent across it. */
function boundingCapsule(points: readonly Vec3[], frame: Frame, i: number, grow: number): VolumeShape {
  const u = frame[i] ?? [1, 0, 0],
    v = frame[(i + 1) % 3] ?? [0, 1, 0],
    w = frame[(i + 2) % 3] ?? [0, 0, 1];
  let vLo = Infinity,
    vHi = -Infinity,
    wLo = Infinity,
    wHi = -Infinity;
  for (const p of points) {
    const pv = dot(p, v),
      pw = dot(p, w);
    if (pv < vLo) vLo = pv;
    if (pv > vHi) vHi = pv;
    if (pw < wLo) wLo = pw;
    if (pw > wHi) wHi = pw;
  }
  const cv = (vLo + vHi) / 2,
    cw = (wLo + wHi) / 2;
  let r = 0;
  for (const p of points) r = Math.max(r, Math.hypot(dot(p, v) - cv, dot(p, w) - cw));
  // Each point beyond an end must lie in that end's cap: end ≥ x − √(r² − ρ²) on the far side, ≤ x + √(r² − ρ²) on the near one.
  let far = -Infinity,
    near = Infinity;
  for (const p of points) {
    const x = dot(p, u);
    const rho = Math.hypot(dot(p, v) - cv, dot(p, w) - cw);
    const reach = Math.sqrt(Math.max(0, r * r - rho * rho));
    far = Math.max(far, x - reach);
    near = Math.min(near, x + reach);
  }
  // near > far: one sphere between them covers every point.
  const s0 = Math.min(near, far),
    s1 = near > far ? s0 : far;
  const at = (s: number): Vec3 => [
    s * u[0] + cv * v[0] + cw * w[0],
    s * u[1] + cv * v[1] + cw * w[1],
    s * u[2] + cv * v[2] + cw * w[2],
  ];
  // A hair of slack for the rounding of the sums above.
  const slack = 1e-9 * (1 + Math.abs(s0) + Math.abs(s1) + r);
  return { kind: "capsule", a: at(s0), b: at(s1), radius: r + grow + slack };
}

function centroid(points: readonly Vec3[]): Vec3 {
  let x = 0,
    y = 0,
    z = 0;
  for (const p of points) {
    x += p[0];
    y += p[1];
    z += p[2];
  }
  return [x / points.length, y / points.length, z / points.length];
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalise(a: Vec3): Vec3 {
  const n = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / n, a[1] / n, a[2] / n];
}

function combine(frame: Frame, c: readonly number[]): Vec3 {
  const [u, v, w] = frame;
  const a = c[0] ?? 0,
    b = c[1] ?? 0,
    d = c[2] ?? 0;
  return [a * u[0] + b * v[0] + d * w[0], a * u[1] + b * v[1] + d * w[1], a * u[2] + b * v[2] + d * w[2]];
}
