import type { FaultPlan } from "./faults.js";

/**
 * How long motions take. `profile`: as the trapezoidal profile (or the MOVE's
 * durationMs) says. `fixed` / `lognormal`: every motion takes exactly that
 * long whatever its distance — how the seed experiments were run.
 */
export type MotionTime =
  | { readonly kind: "profile" }
  | { readonly kind: "fixed"; readonly ms: number }
  | { readonly kind: "lognormal"; readonly medianMs: number; readonly sigma: number };

/** Parses `fixed:MS` or `lognormal:MEDIAN_MS:SIGMA`; returns a reason string when it cannot. */
export function parseMotionTime(text: string): MotionTime | string {
  const parts = text.split(":");
  const num = (s: string | undefined): number => (s !== undefined && /^\d+(\.\d+)?$/.test(s) ? Number(s) : NaN);
  if (parts[0] === "fixed" && parts.length === 2) {
    const ms = num(parts[1]);
    if (Number.isFinite(ms)) return { kind: "fixed", ms };
  }
  if (parts[0] === "lognormal" && parts.length === 3) {
    const medianMs = num(parts[1]);
    const sigma = num(parts[2]);
    if (Number.isFinite(medianMs) && medianMs > 0 && Number.isFinite(sigma))
      return { kind: "lognormal", medianMs, sigma };
  }
  return `--motion-time ${JSON.stringify(text)} is not fixed:MS or lognormal:MEDIAN_MS:SIGMA`;
}

/** The duration to impose on the next motion, or undefined to let the profile decide. */
export function drawMotionMs(spec: MotionTime, plan: FaultPlan): number | undefined {
  switch (spec.kind) {
    case "profile":
      return undefined;
    case "fixed":
      return spec.ms;
    case "lognormal":
      return spec.medianMs * Math.exp(spec.sigma * plan.normal());
  }
}
