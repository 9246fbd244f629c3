import type { z } from "zod";

/**
 * A plain message for a value out of its range or of the wrong type, with the
 * value given beside the bound ("9 is above the largest allowed, 2.6"), in
 * place of zod's "Too big: expected number to be <=2.6", which names neither
 * the value nor what the bound is. The key is said by the issue's path, next
 * to it. Undefined for every other issue (zod's own words stand).
 */
export function boundIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const given = shown(issue.input);
  if (issue.code === "too_big" && (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")) {
    return `${given} is above the ${issue.inclusive === false ? "limit" : "largest allowed"}, ${String(issue.maximum)}${issue.inclusive === false ? " (it must be less)" : ""}`;
  }
  if (
    issue.code === "too_small" &&
    (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint")
  ) {
    return `${given} is below the ${issue.inclusive === false ? "limit" : "smallest allowed"}, ${String(issue.minimum)}${issue.inclusive === false ? " (it must be more)" : ""}`;
  }
  if (issue.code === "invalid_type") {
    return issue.input === undefined
      ? `missing: a ${issue.expected} is required`
      : `expected a ${issue.expected}, got ${given}`;
  }
  return undefined;
}

function shown(value: unknown): string {
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  const json = JSON.stringify(value);
  if (json === undefined) return typeof value;
  return json.length > 40 ? `${json.slice(0, 39)}…` : json;
}
