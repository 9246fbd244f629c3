import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitBoundingVolume } from "../../src/kinematics/volumes/fitBoundingVolume.js";
import { boxBoxSeparation, segmentOrientedBoxDistance } from "../../src/safety/geometry/OrientedBox.js";
import { pointBoxDistanceSquared, segmentBoxDistance } from "../../src/safety/geometry/segmentBoxDistance.js";
import { pointCylinderDistance, segmentCylinderDistance } from "../../src/safety/geometry/segmentCylinderDistance.js";
import { segmentSegmentDistance } from "../../src/safety/geometry/segmentSegmentDistance.js";

/**
 * The envelope's distance functions against brute force: dense samples of
 * the segment (and, for two segments, of both) bound the true minimum from
 * above, and the sample spacing bounds how far above. Each function must lie
 * within that bracket — never above the sampled minimum (it would hide a
 * contact), never below it by more than the spacing.
 */
const coord = fc.double({ min: -1, max: 1, noNaN: true });
const point = fc.tuple(coord, coord, coord);
const N = 400;

function along(a: readonly number[], b: readonly number[], t: number): [number, number, number] {
  return [a[0]! + t * (b[0]! - a[0]!), a[1]! + t * (b[1]! - a[1]!), a[2]! + t * (b[2]! - a[2]!)];
}

function length(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!);
}

/** A random rotation (unit quaternion → three orthonormal axes). */
const rotation = fc
  .tuple(coord, coord, coord, coord)
  .filter((q) => Math.hypot(...q) > 0.1)
  .map(([x, y, z, w]) => {
    const n = Math.hypot(x, y, z, w);
    const [a, b, c, d] = [x / n, y / n, z / n, w / n];
    return [
      [1 - 2 * (b * b + c * c), 2 * (a * b + c * d), 2 * (a * c - b * d)],
      [2 * (a * b - c * d), 1 - 2 * (a * a + c * c), 2 * (b * c + a * d)],
      [2 * (a * c + b * d), 2 * (b * c - a * d), 1 - 2 * (a * a + b * b)],
    ] as const;
  });
const half = fc.tuple(
  fc.double({ min: 0.01, max: 0.5, noNaN: true }),
  fc.double({ min: 0.01, max: 0.5, noNaN: true }),
  fc.double({ min: 0.01, max: 0.5, noNaN: true }),
);
const orientedBox = fc
  .tuple(point, rotation, half)
  .map(([c, axes, h]) => Float64Array.from([...c, ...axes[0], ...axes[1], ...axes[2], ...h]));

/** Distance from a point to an oriented box (exact: clamp in its frame). */
function pointOrientedBoxDistance(p: readonly number[], b: Float64Array): number {
  const d = [p[0]! - b[0]!, p[1]! - b[1]!, p[2]! - b[2]!];
  let s = 0;
  for (let i = 0; i < 3; i++) {
    const u = d[0]! * b[3 + 3 * i]! + d[1]! * b[4 + 3 * i]! + d[2]! * b[5 + 3 * i]!;
    const e = Math.max(0, Math.abs(u) - b[12 + i]!);
    s += e * e;
  }
  return Math.sqrt(s);
}

describe("envelope geometry against brute force", () => {
  it("segment–segment distance", () => {
    fc.assert(
      fc.property(point, point, point, point, (a, b, c, d) => {
        const got = segmentSegmentDistance(...a, ...b, ...c, ...d);
        let brute = Infinity;
        const M = 120;
        for (let i = 0; i <= M; i++) {
          const p = along(a, b, i / M);
          // The exact distance from a point to segment cd, so only one segment needs sampling.
          const cd = [d[0] - c[0], d[1] - c[1], d[2] - c[2]];
          const l2 = cd[0]! ** 2 + cd[1]! ** 2 + cd[2]! ** 2;
          const t =
            l2 > 0
              ? Math.max(
                  0,
                  Math.min(1, ((p[0] - c[0]) * cd[0]! + (p[1] - c[1]) * cd[1]! + (p[2] - c[2]) * cd[2]!) / l2),
                )
              : 0;
          brute = Math.min(brute, Math.hypot(...along(c, d, t).map((v, k) => v - p[k]!)));
        }
        expect(got).toBeLessThanOrEqual(brute + 1e-9);
        expect(got).toBeGreaterThanOrEqual(brute - length(a, b) / M / 2 - 1e-9);
      }),
      { numRuns: 400, seed: 1 },
    );
    // Parallel and degenerate cases.
    expect(segmentSegmentDistance(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0)).toBeCloseTo(1, 12);
    expect(segmentSegmentDistance(0, 0, 0, 1, 0, 0, 2, 1, 0, 3, 1, 0)).toBeCloseTo(Math.SQRT2, 12);
    expect(segmentSegmentDistance(0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1)).toBeCloseTo(Math.sqrt(3), 12);
  });

  it("segment–box distance (axis-aligned and oriented)", () => {
    fc.assert(
      fc.property(point, point, orientedBox, (a, b, box) => {
        const got = segmentOrientedBoxDistance(...a, ...b, box, 0);
        let brute = Infinity;
        for (let i = 0; i <= N; i++) brute = Math.min(brute, pointOrientedBoxDistance(along(a, b, i / N), box));
        expect(got).toBeLessThanOrEqual(brute + 1e-9);
        expect(got).toBeGreaterThanOrEqual(brute - length(a, b) / N / 2 - 1e-9);
      }),
      { numRuns: 400, seed: 2 },
    );
    fc.assert(
      fc.property(point, point, point, half, (a, b, c, h) => {
        const lo = [c[0] - h[0], c[1] - h[1], c[2] - h[2]] as const,
          hi = [c[0] + h[0], c[1] + h[1], c[2] + h[2]] as const;
        const got = segmentBoxDistance(...a, ...b, ...lo, ...hi);
        let brute = Infinity;
        for (let i = 0; i <= N; i++)
          brute = Math.min(brute, Math.sqrt(pointBoxDistanceSquared(...along(a, b, i / N), ...lo, ...hi)));
        expect(got).toBeLessThanOrEqual(brute + 1e-9);
        expect(got).toBeGreaterThanOrEqual(brute - length(a, b) / N / 2 - 1e-9);
      }),
      { numRuns: 400, seed: 3 },
    );
  });

  it("box–box separation is a lower bound on the distance, and positive only when the boxes do not meet", () => {
    fc.assert(
      fc.property(orientedBox, orientedBox, (A, B) => {
        const sep = boxBoxSeparation(A, 0, B, 0);
        // Points of B's surface grid: their distances to A bound the true distance from above.
        let upper = Infinity;
        let inside = false;
        const M = 8;
        for (let i = 0; i <= M; i++)
          for (let j = 0; j <= M; j++)
            for (let k = 0; k <= M; k++) {
              const u = (2 * i) / M - 1,
                v = (2 * j) / M - 1,
                w = (2 * k) / M - 1;
              const p = [0, 1, 2].map(
                (x) => B[x]! + u * B[12]! * B[3 + x]! + v * B[13]! * B[6 + x]! + w * B[14]! * B[9 + x]!,
              );
              const d = pointOrientedBoxDistance(p, A);
              upper = Math.min(upper, d);
              if (d === 0) inside = true;
            }
        expect(sep).toBeLessThanOrEqual(upper + 1e-9);
        if (inside) expect(sep).toBeLessThanOrEqual(1e-9);
      }),
      { numRuns: 400, seed: 4 },
    );
    // Two unit cubes side by side, 0.5 apart: exact.
    const cube = (x: number): Float64Array => Float64Array.from([x, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0.5, 0.5]);
    expect(boxBoxSeparation(cube(0), 0, cube(1.5), 0)).toBeCloseTo(0.5, 12);
    expect(boxBoxSeparation(cube(0), 0, cube(0.9), 0)).toBeLessThan(0);
  });

  it("segment–cylinder distance never exceeds the sampled minimum", () => {
    fc.assert(
      fc.property(
        point,
        point,
        point,
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        (a, b, c, r, h) => {
          const got = segmentCylinderDistance(...a, ...b, c[0], c[1], r, c[2] - h, c[2] + h);
          let brute = Infinity;
          for (let i = 0; i <= N; i++)
            brute = Math.min(brute, pointCylinderDistance(...along(a, b, i / N), c[0], c[1], r, c[2] - h, c[2] + h));
          expect(got).toBeLessThanOrEqual(brute + 1e-9);
          expect(got).toBeGreaterThanOrEqual(brute - length(a, b) / N / 2 - 1e-6);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });

  it("a fitted bounding volume contains every point it was fitted to", () => {
    fc.assert(
      fc.property(
        fc.array(point, { minLength: 1, maxLength: 60 }),
        fc.constantFrom("capsule" as const, "box" as const, undefined),
        (points, kind) => {
          const s = fitBoundingVolume(points, kind === undefined ? {} : { kind });
          for (const p of points) {
            if (s.kind === "capsule")
              expect(segmentSegmentDistance(...s.a, ...s.b, ...p, ...p)).toBeLessThanOrEqual(s.radius + 1e-9);
            else
              expect(
                pointOrientedBoxDistance(
                  p,
                  Float64Array.from([...s.center, ...s.axes[0], ...s.axes[1], ...s.axes[2], ...s.half]),
                ),
              ).toBeLessThanOrEqual(1e-9);
          }
        },
      ),
      { numRuns: 300, seed: 6 },
    );
  });
});
