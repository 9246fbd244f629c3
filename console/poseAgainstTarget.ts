import { fixed } from "./format.js";
import type { ArmAxis } from "./wire.js";

/** Where one axis is, as the arm reports it, against the target a motion was sent to. */
export type Standing =
  | { readonly kind: "at"; readonly off: number }
  | { readonly kind: "short"; readonly off: number }
  | { readonly kind: "past"; readonly off: number }
  | { readonly kind: "off"; readonly off: number }
  | { readonly kind: "no_reading" };

export interface AxisReport {
  readonly axis: string;
  readonly standing: Standing;
  /** The report is the last seen, not the arm now (the link or the stream is stale). */
  readonly stale: boolean;
  /** In words: "wrist_2: 0.450 rad of 0.900: short by 0.450". */
  readonly text: string;
}

/**
 * Reported against target, judged by the axis's own tolerance (GET /v1/arm):
 * "short" when the axis stopped between where it started and the target,
 * "past" when it went beyond, "off" when where it started is not known.
 */
export function standingOf(
  reported: number | undefined,
  target: number,
  from: number | undefined,
  tolerance: number,
): Standing {
  if (reported === undefined || !Number.isFinite(reported)) return { kind: "no_reading" };
  const off = Math.abs(reported - target);
  if (off <= tolerance) return { kind: "at", off };
  if (from === undefined || from === target) return { kind: "off", off };
  // Along the direction of travel: before the target is short, beyond it is past.
  const travelled = (reported - from) * Math.sign(target - from);
  return travelled > Math.abs(target - from) ? { kind: "past", off } : { kind: "short", off };
}

function standingWords(s: Standing, tolerance: number): string {
  switch (s.kind) {
    case "at":
      return `at the target (within ${fixed(tolerance)})`;
    case "short":
      return `short by ${fixed(s.off)}`;
    case "past":
      return `past it by ${fixed(s.off)}`;
    case "off":
      return `off by ${fixed(s.off)}`;
    case "no_reading":
      return "no reading from the arm";
  }
}

/** One axis of a motion, reported against its target in words. */
export function axisReport(
  axis: ArmAxis,
  reported: number | undefined,
  target: number,
  from: number | undefined,
  stale: boolean,
): AxisReport {
  const standing = standingOf(reported, target, from, axis.tolerance);
  const unit = axis.unit === "rad" ? " rad" : "";
  const where =
    standing.kind === "no_reading" ? `target ${fixed(target)}` : `${fixed(reported)}${unit} of ${fixed(target)}`;
  const text = `${axis.name}: ${where}${stale ? " (last seen, not now)" : ""}: ${standingWords(standing, axis.tolerance)}`;
  return { axis: axis.name, standing, stale, text };
}

/** True when the arm's own report, now, puts every axis at its target. */
export function reportsReached(reports: readonly AxisReport[]): boolean {
  return reports.every((r) => r.standing.kind === "at" && !r.stale);
}

/** The second step's question when the arm's report does not back "reached". */
export function reachedQuestion(reports: readonly AxisReport[]): string {
  const doubtful = reports.filter((r) => r.standing.kind !== "at" || r.stale);
  const what = (r: AxisReport): string => {
    const old = r.stale ? " (its last report, not now)" : "";
    switch (r.standing.kind) {
      case "short":
        return `the arm reports ${r.axis} short of the target${old}`;
      case "past":
        return `the arm reports ${r.axis} past the target${old}`;
      case "off":
        return `the arm reports ${r.axis} off the target${old}`;
      case "no_reading":
        return `the arm reports no reading of ${r.axis}`;
      case "at":
        return `the arm's report of ${r.axis} at the target is old`;
    }
  };
  const said = doubtful.map(what).join("; ");
  return `${said.charAt(0).toUpperCase()}${said.slice(1)} \u2014 confirm you see it there, at the target.`;
}
