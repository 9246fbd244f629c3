import { describe, expect, it } from "vitest";
import {
  applyHomography,
  fitHomography,
  invertHomography,
  type Homography,
  type Point2,
} from "../../src/geometry/fitHomography.js";
import { mulberry32 } from "../../src/random/mulberry32.js";

/** A perspective view of a table: image [0..1000]² → metres, with tilt terms so it is not affine. */
const TRUTH: Homography = [0.00062, 0.00011, 0.18, -0.00009, 0.00071, -0.31, 0.00004, -0.00007, 1];
const map = (p: Point2): Point2 => applyHomography(TRUTH, p) as Point2;

describe("fitHomography (normalised DLT)", () => {
  it("recovers a known homography from 4 exact correspondences, residual ~0", () => {
    const pts: Point2[] = [
      [80, 60],
      [930, 90],
      [900, 950],
      [40, 880],
    ];
    const fit = fitHomography(pts.map((p) => ({ from: p, to: map(p) })));
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(fit.rmsResidual).toBeLessThan(1e-9);
    for (const q of [
      [500, 500],
      [123, 877],
      [999, 1],
    ] as Point2[]) {
      const got = applyHomography(fit.h, q) as Point2;
      const want = map(q);
      expect(Math.hypot(got[0] - want[0], got[1] - want[1])).toBeLessThan(1e-9);
    }
  });

  it("least squares over many noisy points: the residual reports the noise, the map stays close", () => {
    const rand = mulberry32(7);
    const sigma = 0.001; // 1 mm of measurement noise on the table points
    const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    const pairs = Array.from({ length: 40 }, () => {
      const p: Point2 = [rand() * 1000, rand() * 1000];
      const t = map(p);
      return { from: p, to: [t[0] + sigma * gauss(), t[1] + sigma * gauss()] as Point2 };
    });
    const fit = fitHomography(pairs);
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    // RMS of a 2-D residual with σ per axis is ~σ√2, a little less after fitting 8 parameters.
    expect(fit.rmsResidual).toBeGreaterThan(0.0009);
    expect(fit.rmsResidual).toBeLessThan(0.0017);
    const centre = applyHomography(fit.h, [500, 500]) as Point2;
    const truth = map([500, 500]);
    expect(Math.hypot(centre[0] - truth[0], centre[1] - truth[1])).toBeLessThan(0.0008);
  });

  it("a single bad correspondence shows in the residual (a mis-measured point is visible at load)", () => {
    const pts: Point2[] = [
      [80, 60],
      [930, 90],
      [900, 950],
      [40, 880],
      [500, 500],
    ];
    const pairs = pts.map((p, i) => ({ from: p, to: i === 4 ? ([map(p)[0] + 0.02, map(p)[1]] as Point2) : map(p) }));
    const fit = fitHomography(pairs);
    expect(fit.ok && fit.maxResidual > 0.005).toBe(true);
  });

  it.each([
    [
      "fewer than 4 points",
      [
        [0, 0],
        [1000, 0],
        [0, 1000],
      ],
    ],
    [
      "all collinear",
      [
        [0, 0],
        [250, 250],
        [500, 500],
        [1000, 1000],
      ],
    ],
    [
      "three of four collinear",
      [
        [0, 0],
        [500, 500],
        [1000, 1000],
        [0, 1000],
      ],
    ],
    [
      "a repeated point",
      [
        [0, 0],
        [1000, 0],
        [1000, 0],
        [0, 1000],
      ],
    ],
  ] as const)("refuses a degenerate set: %s", (_name, pts) => {
    const fit = fitHomography(pts.map((p) => ({ from: p, to: map(p as Point2) })));
    expect(fit.ok).toBe(false);
  });

  it("invertHomography maps back", () => {
    const inv = invertHomography(TRUTH);
    const p: Point2 = [321, 654];
    const back = applyHomography(inv, map(p)) as Point2;
    expect(Math.hypot(back[0] - p[0], back[1] - p[1])).toBeLessThan(1e-7);
  });
});
