import type { z } from "zod";
import { ArmbridgeError } from "../../errors.js";
import type { ArgIssue } from "../../validation/formatIssues.js";
import { parseUntrusted } from "../../validation/parseUntrusted.js";

/**
 * Untrusted request input through zod; a failure is ARMB_ERR_HTTP_BAD_REQUEST
 * naming each offending field (`body.calls.[0].name: ...`), and for a name
 * that is not a valid one (an unknown field, an enum's value) the valid
 * choices: in the message, and as the error's `choices` when it is the only
 * such issue.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: "body" | "query" | "params",
): z.output<S> {
  const parsed = parseUntrusted(schema, value);
  if (parsed.success) return parsed.data;
  const issues = parsed.issues.slice(0, 20);
  const named = issues.filter((i) => i.choices !== undefined);
  return badRequest(
    issues.map((i) => `${where}${i.path === "(args)" ? "" : `.${i.path}`}: ${i.message}`),
    named.length === 1 ? named[0] : undefined,
  );
}

function badRequest(issues: string[], named: ArgIssue | undefined): never {
  throw new ArmbridgeError("ARMB_ERR_HTTP_BAD_REQUEST", {
    issues: issues.join("; "),
    ...(named?.choices ? { choices: named.choices } : {}),
  });
}
