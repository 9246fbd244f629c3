import { describe, expect, it } from "vitest";
import { unitVector, vectorLength } from "../../src/geometry/unitVector.js";

describe("unitVector: the one normalisation of a direction, refusing what cannot be normalised", () => {
  it.each([
    ["a unit axis", [0, 0, 1], [0, 0, 1], 1],
    ["a plain vector", [3, 0, 4], [0.6, 0, 0.8], 5],
    ["huge but finite components (a naive hypot would overflow)", [3e307, 4e307], [0.6, 0.8], 5e307],
    ["tiny components (a naive sum of squares would underflow to 0)", [3e-200, 4e-200], [0.6, 0.8], 5e-200],
    ["a quaternion", [1, 1, 1, 1], [0.5, 0.5, 0.5, 0.5], 2],
  ])("%s", (_what, v, unit, length) => {
    const r = unitVector(v);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    r.unit.forEach((x, i) => expect(x).toBeCloseTo(unit[i]!, 14));
    expect(r.length / length).toBeCloseTo(1, 14);
  });

  it.each([
    [
      "a length that overflows a double (1e308 × 4): it used to become all zeros",
      [1e308, 1e308, 1e308, 1e308],
      "overflows",
    ],
    ["(1.5e308, 1.5e308, 0)", [1.5e308, 1.5e308, 0], "overflows"],
    ["NaN", [Number.NaN, 0, 1], "not_finite"],
    ["Infinity", [Number.POSITIVE_INFINITY, 0, 0], "not_finite"],
    ["-Infinity", [0, Number.NEGATIVE_INFINITY, 0], "not_finite"],
    ["zero", [0, 0, 0], "too_short"],
  ])("refuses %s", (_what, v, reason) => {
    expect(unitVector(v)).toMatchObject({ ok: false, reason });
  });

  it("refuses a vector at or below the minimum length the caller asks for", () => {
    expect(unitVector([1e-10, 0, 0], 1e-9)).toMatchObject({ ok: false, reason: "too_short" });
    expect(unitVector([1e-8, 0, 0], 1e-9)).toMatchObject({ ok: true });
  });

  it("vectorLength: any number of components, no intermediate overflow; Infinity only when the length is beyond a double", () => {
    expect(vectorLength([3e200, 4e200])).toBeCloseTo(5e200, -186);
    expect(vectorLength(new Array<number>(100).fill(1e300))).toBeCloseTo(1e301, -287);
    expect(vectorLength([1e308, 1e308, 1e308, 1e308])).toBe(Number.POSITIVE_INFINITY);
    expect(vectorLength([])).toBe(0);
    expect(vectorLength([1, Number.NaN])).toBeNaN();
  });
});
