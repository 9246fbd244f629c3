import type { z } from "zod";

/** One zod issue as data a model (or a person) can act on. */
export interface ArgIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
  /** For a name that is not one of the valid ones (an unknown joint, pose, camera or field): the valid ones. */
  readonly choices?: readonly string[];
}

export function toArgIssues(issues: readonly z.core.$ZodIssue[]): ArgIssue[] {
  return issues.map((i) => ({
    path: i.path.length === 0 ? "(args)" : i.path.map((p) => (typeof p === "number" ? `[${p}]` : String(p))).join("."),
    code: i.code,
    message: i.message,
  }));
}

/** `positions.elbow: Too big: expected number to be <=2.6; speed: ...` */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return toArgIssues(issues)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
}
