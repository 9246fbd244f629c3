import { applyHomography, fitHomography } from "../../../geometry/fitHomography.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";

/** One touch-off mark: the tip's position (FK, base frame, m) and its pixel in an image of `size`. */
export interface TouchOffMark {
  readonly tip: readonly [number, number, number];
  readonly pixel: readonly [number, number];
  readonly size: readonly [number, number];
}

export interface TouchOffFit {
  readonly z: number;
  /** Gemini's image points ([y, x], 0–1000) and the tips' table x, y. */
  readonly points: readonly { readonly image: [number, number]; readonly table: [number, number] }[];
  readonly residual: { readonly rms_mm: number; readonly max_mm: number };
  /** Each mark inside the others' hull mapped by the fit of the others (leave-one-out): how far from its tip, over how many marks. Undefined when no mark can be so judged. */
  readonly holdout: { readonly rms_mm: number; readonly max_mm: number; readonly marks: number } | undefined;
}

/**
 * A tip this far off the table plane is not on the table: the mapping fitted
 * through it maps the plane the tips were on, and a thing on the table is
 * then off by the parallax (10 cm above, seen from 1.6 m, moves a point at
 * the edge of the view by centimetres), while the residual stays tiny.
 */
export const PLANE_TOLERANCE_M = 0.005;
const MIN_POINTS = 4;

/**
 * The table mapping from touch-off marks, checked two ways a residual cannot
 * be: every tip must be on the table plane (`tableZ`, or when it is not known
 * the marks' mean height, their spread within the tolerance), and each mark
 * is mapped by a fit of the others — a pixel taken off the tip (on the wrist,
 * say) fits the rest almost as well as a right one, but is not predicted by
 * them. Throws ARMB_ERR_CLI_USAGE naming the marks off the plane.
 */
export function fitTouchOff(marks: readonly TouchOffMark[], tableZ: number | undefined): TouchOffFit {
  const heights = marks.map((m) => m.tip[2]);
  const z = tableZ ?? heights.reduce((a, b) => a + b, 0) / heights.length;
  const off = marks
    .map((m, i) => ({ mark: i + 1, dz: m.tip[2] - z }))
    .filter((o) => Math.abs(o.dz) > PLANE_TOLERANCE_M);
  if (off.length > 0) {
    const which = off.map((o) => `mark ${o.mark} ${(o.dz * 1000).toFixed(1)} mm`).join(", ");
    throw cliUsageError(
      `the tool tip must touch the table at each mark: the table is at z ${z.toFixed(4)} m (${tableZ === undefined ? "the marks' mean height" : "--table-z or the config's scene table"}) and ${which} ${off.length === 1 ? "is" : "are"} off it (more than ${PLANE_TOLERANCE_M * 1000} mm); a mapping fitted off the table maps things on it by the parallax`,
    );
  }
  const points = marks.map((m) => ({
    image: [round((m.pixel[1] / m.size[1]) * 1000), round((m.pixel[0] / m.size[0]) * 1000)] as [number, number],
    table: [round(m.tip[0], 6), round(m.tip[1], 6)] as [number, number],
  }));
  const pairs = points.map((p) => ({ from: [p.image[1], p.image[0]] as const, to: p.table }));
  const fit = fitHomography(pairs);
  if (!fit.ok)
    throw cliUsageError(`the marks do not fix a table mapping: ${fit.reason}; spread them out (no three on a line)`);
  return {
    z,
    points,
    residual: { rms_mm: round(fit.rmsResidual * 1000, 2), max_mm: round(fit.maxResidual * 1000, 2) },
    holdout: leaveOneOut(pairs),
  };
}

/**
 * Leave-one-out over the marks inside the others' hull: a mark outside it is
 * an extrapolation of the others, where a quarter-pixel of noise becomes
 * centimetres, and says nothing about the mapping over the work area.
 */
function leaveOneOut(
  pairs: readonly { readonly from: readonly [number, number]; readonly to: readonly [number, number] }[],
): TouchOffFit["holdout"] {
  if (pairs.length <= MIN_POINTS) return undefined;
  const errors: number[] = [];
  for (const [i, held] of pairs.entries()) {
    const others = pairs.filter((_, k) => k !== i);
    if (
      !insideHull(
        held.from,
        others.map((p) => p.from),
      )
    )
      continue;
    const fit = fitHomography(others);
    const mapped = fit.ok ? applyHomography(fit.h, held.from) : undefined;
    // The others cannot fix a mapping (three on a line), or it sends this mark to infinity: no prediction at all.
    errors.push(mapped ? Math.hypot(mapped[0] - held.to[0], mapped[1] - held.to[1]) : Infinity);
  }
  if (errors.length === 0) return undefined;
  const rms = Math.sqrt(errors.reduce((a, e) => a + e * e, 0) / errors.length);
  return { rms_mm: round(rms * 1000, 2), max_mm: round(Math.max(...errors) * 1000, 2), marks: errors.length };
}

/** Whether `p` is strictly inside the convex hull of `points` (Andrew's monotone chain, then same-side tests). */
function insideHull(p: readonly [number, number], points: readonly (readonly [number, number])[]): boolean {
  const cross = (o: readonly [number, number], a: readonly [number, number], b: readonly [number, number]): number =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const half = (list: readonly (readonly [number, number])[]): (readonly [number, number])[] => {
    const h: (readonly [number, number])[] = [];
    for (const q of list) {
      while (h.length >= 2 && cross(h[h.length - 2]!, h[h.length - 1]!, q) <= 0) h.pop();
      h.push(q);
    }
    return h.slice(0, -1);
  };
  const hull = [...half(sorted), ...half([...sorted].reverse())];
  if (hull.length < 3) return false;
  return hull.every((a, k) => cross(a, hull[(k + 1) % hull.length]!, p) > 0);
}

function round(v: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
