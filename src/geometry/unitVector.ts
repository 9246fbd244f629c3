/** A vector scaled to length 1, with the length it had; or why it cannot be. */
export type UnitVector =
  | { readonly ok: true; readonly unit: number[]; readonly length: number }
  | { readonly ok: false; readonly reason: "not_finite" | "overflows" | "too_short"; readonly message: string };

/**
 * The one place a direction is normalised (quaternions, URDF axes, any
 * direction from outside). A plain `v / Math.hypot(...v)` goes wrong at both
 * ends of the float range: a length that overflows to Infinity turns every
 * component into 0 (the identity rotation, a zero axis), and NaN or Infinity
 * in a component passes a `length > ε` check. Here every component must be
 * finite, the vector is scaled by its largest component before the length is
 * taken (so no square overflows or underflows on the way), and a vector
 * whose true length is not a finite double, or is at or below `minLength`, is
 * refused rather than quietly turned into something else.
 */
export function unitVector(v: readonly number[], minLength = 0): UnitVector {
  for (const x of v) {
    if (!Number.isFinite(x))
      return { ok: false, reason: "not_finite", message: `has a component that is not a finite number (${String(x)})` };
  }
  const { largest, scaled } = scaledLength(v);
  if (largest === 0) return { ok: false, reason: "too_short", message: "is zero" };
  const length = largest * scaled;
  if (!Number.isFinite(length))
    return {
      ok: false,
      reason: "overflows",
      message: `is too long: its length overflows a double (largest component ${largest})`,
    };
  if (!(length > minLength))
    return { ok: false, reason: "too_short", message: `is too short: length ${length} is not above ${minLength}` };
  return { ok: true, unit: v.map((x) => x / largest / scaled), length };
}

/**
 * The Euclidean length of any number of components, with no intermediate
 * overflow or underflow (Math.hypot, for arrays of any size): Infinity only
 * when the length itself is beyond a double, NaN when a component is NaN.
 */
export function vectorLength(v: readonly number[]): number {
  const { largest, scaled } = scaledLength(v);
  return largest === 0 || !Number.isFinite(largest) ? largest : largest * scaled;
}

/** The largest |component| and the length of v divided by it. */
function scaledLength(v: readonly number[]): { largest: number; scaled: number } {
  let largest = 0;
  for (const x of v) {
    if (Number.isNaN(x)) return { largest: Number.NaN, scaled: Number.NaN };
    largest = Math.max(largest, Math.abs(x));
  }
  if (largest === 0 || !Number.isFinite(largest)) return { largest, scaled: 1 };
  let sum = 0;
  for (const x of v) sum += (x / largest) ** 2;
  return { largest, scaled: Math.sqrt(sum) };
}
