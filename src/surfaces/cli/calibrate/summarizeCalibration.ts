import type { CalibrationRun } from "./CalibrationRun.js";
import { formatTable } from "../bus/printRecords.js";

/**
 * The calibration as a table on stderr, and what it says about the config:
 * a joint limit beyond the travel measured by hand would drive the servo
 * into its end stop.
 */
export function summarizeCalibration(run: CalibrationRun): void {
  const rows: string[][] = [];
  const warnings: string[] = [];
  for (const j of run.config.arm.joints) {
    const a = run.axis(j.name);
    if (a?.kind !== "joint") continue;
    const deg = (c: number | undefined): string =>
      c === undefined || a.center === undefined || a.sign === undefined
        ? "?"
        : `${(((c - a.center) * a.sign * 360) / a.counts_per_rev).toFixed(0)}°`;
    rows.push([
      j.name,
      String(a.id),
      String(a.center ?? "?"),
      a.sign === undefined ? "?" : a.sign > 0 ? "+1" : "-1",
      `${a.range_min ?? "?"}..${a.range_max ?? "?"}`,
      `${deg(a.sign === -1 ? a.range_max : a.range_min)}..${deg(a.sign === -1 ? a.range_min : a.range_max)}`,
    ]);
    if (a.center !== undefined && a.sign !== undefined && a.range_min !== undefined && a.range_max !== undefined) {
      const countAt = (rad: number): number => a.center! + ((rad * a.counts_per_rev) / (2 * Math.PI)) * a.sign!;
      const lo = Math.min(countAt(j.min), countAt(j.max));
      const hi = Math.max(countAt(j.min), countAt(j.max));
      if (lo < a.range_min || hi > a.range_max) {
        warnings.push(
          `${j.name}: the config's limits ${j.min}..${j.max} rad reach counts ${Math.round(lo)}..${Math.round(hi)}, beyond the travel measured (${a.range_min}..${a.range_max}): narrow min/max in the config, or the servo may be driven into its end stop`,
        );
      }
    }
  }
  const g = run.config.arm.gripper;
  const ga = g ? run.axis(g.name) : undefined;
  if (g && ga?.kind === "gripper")
    rows.push([g.name, String(ga.id), `closed ${ga.closed ?? "?"}`, "", `open ${ga.open ?? "?"}`, ""]);
  run.io.stderr.write(formatTable(["AXIS", "ID", "CENTRE", "SIGN", "RANGE (counts)", "RANGE (from zero)"], rows));
  for (const w of warnings) run.say(`warning: ${w}`, { event: "warning", text: w });
}
