import type { z } from "zod";
import { ArmbridgeError } from "../../errors.js";
import { toArgIssues } from "../../validation/formatIssues.js";

/**
 * Untrusted request input through zod; a failure is ARMB_ERR_HTTP_BAD_REQUEST
 * naming each offending field (`body.calls.[0].name: ...`).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query" | "params"): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = toArgIssues(parsed.error.issues)
    .slice(0, 20)
    .map((i) => `${where}${i.path === "(args)" ? "" : `.${i.path}`}: ${i.message}`);
  return badRequest(issues);
}

function badRequest(issues: string[]): never {
  throw new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", { issues: issues.join("; ") });
}
