import { Matrix, SingularValueDecomposition } from "ml-matrix";
import { vectorLength } from "./unitVector.js";

/** A 3×3 homography, row-major: (x, y, w)ᵀ = H · (u, v, 1)ᵀ, then x/w, y/w. */
export type Homography = readonly [number, number, number, number, number, number, number, number, number];

export type Point2 = readonly [number, number];

/** One correspondence: a point in the source plane and where it lies in the destination plane. */
export interface Correspondence {
  readonly from: Point2;
  readonly to: Point2;
}

export type HomographyFit =
  | {
      readonly ok: true;
      readonly h: Homography;
      /** Root-mean-square distance between each mapped `from` and its `to`, in destination units. */
      readonly rmsResidual: number;
      readonly maxResidual: number;
      /** Per correspondence, in the order given. */
      readonly residuals: readonly number[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Fits the homography that maps `from` points to `to` points: the normalised
 * direct linear transform (Hartley & Zisserman, Multiple View Geometry, 2nd
 * ed., Algorithm 4.2). Each plane's points are moved to their centroid and
 * scaled to a mean distance of √2 from it, so pixel-sized and metre-sized
 * coordinates weigh alike; H is the right singular vector of the 2n×9 design
 * matrix with the smallest singular value (the algebraic least-squares
 * solution for n > 4), then de-normalised.
 *
 * Refused: fewer than 4 correspondences, all points of a plane (nearly) on
 * one line, or a set whose design matrix leaves more than one solution
 * (three of four points collinear, repeated points): none of these fixes a
 * plane-to-plane map.
 */
export function fitHomography(pairs: readonly Correspondence[]): HomographyFit {
  if (pairs.length < 4)
    return { ok: false, reason: `${pairs.length} correspondence(s); a homography needs at least 4` };
  const from = normaliser(pairs.map((p) => p.from));
  const to = normaliser(pairs.map((p) => p.to));
  if (!from.ok) return { ok: false, reason: `the image points ${from.reason}` };
  if (!to.ok) return { ok: false, reason: `the table points ${to.reason}` };
  const DEGENERATE =
    "do not determine a homography (three of the points are collinear, or points repeat): choose points spread over the table, no three on one line";
  // Four points are the minimum: then no three of them may be collinear in either plane.
  if (
    pairs.length === 4 &&
    (hasCollinearTriple(pairs.map((p) => apply3(from.t, p.from))) ||
      hasCollinearTriple(pairs.map((p) => apply3(to.t, p.to))))
  ) {
    return { ok: false, reason: DEGENERATE };
  }

  const rows: number[][] = [];
  for (const p of pairs) {
    const [u, v] = apply3(from.t, p.from);
    const [x, y] = apply3(to.t, p.to);
    rows.push([-u, -v, -1, 0, 0, 0, x * u, x * v, x]);
    rows.push([0, 0, 0, -u, -v, -1, y * u, y * v, y]);
  }
  // With exactly 4 points the design matrix is 8×9; pad to square so the SVD yields all nine right singular vectors.
  while (rows.length < 9) rows.push(new Array<number>(9).fill(0));
  const svd = new SingularValueDecomposition(new Matrix(rows), {
    computeLeftSingularVectors: false,
    computeRightSingularVectors: true,
    autoTranspose: false,
  });
  const sigma = svd.diagonal;
  const order = sigma.map((s, i) => [s, i] as const).sort((a, b) => b[0] - a[0]);
  const largest = order[0]?.[0] ?? 0;
  const secondSmallest = order[7]?.[0] ?? 0;
  // A unique solution needs rank 8: a second (near-)null direction means the points do not pin H down.
  if (!(largest > 0) || secondSmallest / largest < 1e-9) return { ok: false, reason: DEGENERATE };
  const smallestIndex = order[8]?.[1] ?? 8;
  const vectors = svd.rightSingularVectors;
  const hn = Array.from({ length: 9 }, (_, k) => vectors.get(k, smallestIndex));
  // H = T_to⁻¹ · Hn · T_from
  const h = multiply3(multiply3(invertSimilarity(to.t), hn), from.t);
  const h33 = h[8] ?? 0;
  const scale = Math.abs(h33) > 1e-12 ? h33 : norm(h);
  const hh = h.map((e) => e / scale) as unknown as Homography;
  // A singular H squashes the plane onto a line: the correspondences contradict any plane-to-plane map.
  if (Math.abs(det3(multiply3(multiply3(to.t, hh), invertSimilarity(from.t)))) < 1e-9 * norm(hn) ** 3)
    return { ok: false, reason: DEGENERATE };
  const residuals = pairs.map((p) => {
    const mapped = applyHomography(hh, p.from);
    return mapped ? Math.hypot(mapped[0] - p.to[0], mapped[1] - p.to[1]) : Infinity;
  });
  if (!residuals.every(Number.isFinite))
    return { ok: false, reason: "maps a calibration point to infinity (points on both sides of the camera's horizon)" };
  const rmsResidual = vectorLength(residuals) / Math.sqrt(residuals.length);
  return { ok: true, h: hh, rmsResidual, maxResidual: Math.max(...residuals), residuals };
}

/** H · (u, v, 1); undefined when the point maps to infinity (w ≈ 0). */
export function applyHomography(h: Homography, p: Point2): Point2 | undefined {
  const [u, v] = p;
  const w = h[6] * u + h[7] * v + h[8];
  if (Math.abs(w) < 1e-12) return undefined;
  return [(h[0] * u + h[1] * v + h[2]) / w, (h[3] * u + h[4] * v + h[5]) / w];
}

/** The sign of w for a point: a point whose w differs in sign from the calibration points' lies beyond the horizon. */
export function homogeneousW(h: Homography, p: Point2): number {
  return h[6] * p[0] + h[7] * p[1] + h[8];
}

/** The inverse map (adjugate; scale is irrelevant for a homography). */
export function invertHomography(h: Homography): Homography {
  const [a, b, c, d, e, f, g, i, j] = h;
  const inv = [
    e * j - f * i,
    c * i - b * j,
    b * f - c * e,
    f * g - d * j,
    a * j - c * g,
    c * d - a * f,
    d * i - e * g,
    b * g - a * i,
    a * e - b * d,
  ];
  const s = inv[8] !== undefined && Math.abs(inv[8]) > 1e-12 ? inv[8] : norm(inv);
  return inv.map((x) => x / s) as unknown as Homography;
}

type Similarity = readonly [number, number, number, number, number, number, number, number, number];

function normaliser(points: readonly Point2[]): { ok: true; t: Similarity } | { ok: false; reason: string } {
  const n = points.length;
  const cx = points.reduce((s, p) => s + p[0], 0) / n;
  const cy = points.reduce((s, p) => s + p[1], 0) / n;
  const mean = points.reduce((s, p) => s + Math.hypot(p[0] - cx, p[1] - cy), 0) / n;
  if (!(mean > 0) || !Number.isFinite(mean)) return { ok: false, reason: "all coincide" };
  // Collinear: the scatter matrix's smaller eigenvalue vanishes against the larger.
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (const [x, y] of points) {
    sxx += (x - cx) ** 2;
    syy += (y - cy) ** 2;
    sxy += (x - cx) * (y - cy);
  }
  const trace = sxx + syy;
  const det = sxx * syy - sxy * sxy;
  const disc = Math.sqrt(Math.max(0, (trace * trace) / 4 - det));
  const small = trace / 2 - disc;
  const large = trace / 2 + disc;
  if (small / large < 1e-8) return { ok: false, reason: "all lie on one line" };
  const s = Math.SQRT2 / mean;
  return { ok: true, t: [s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1] };
}

/** In normalised coordinates (mean distance √2), a triangle of area below this is a line. */
function hasCollinearTriple(points: readonly Point2[]): boolean {
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++)
      for (let k = j + 1; k < points.length; k++) {
        const [a, b, c] = [points[i], points[j], points[k]] as [Point2, Point2, Point2];
        if (Math.abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) < 1e-6) return true;
      }
  return false;
}

function det3(m: readonly number[]): number {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0, i = 0] = m;
  return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}

function apply3(t: Similarity, p: Point2): Point2 {
  return [t[0] * p[0] + t[1] * p[1] + t[2], t[3] * p[0] + t[4] * p[1] + t[5]];
}

function invertSimilarity(t: Similarity): number[] {
  const s = t[0];
  return [1 / s, 0, -t[2] / s, 0, 1 / s, -t[5] / s, 0, 0, 1];
}

function multiply3(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++)
      for (let k = 0; k < 3; k++) out[r * 3 + c] = (out[r * 3 + c] ?? 0) + (a[r * 3 + k] ?? 0) * (b[k * 3 + c] ?? 0);
  return out;
}

function norm(v: readonly number[]): number {
  return vectorLength(v) || 1;
}
