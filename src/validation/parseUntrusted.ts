import type { z } from "zod";
import { boundIssueMessage } from "./boundIssueMessage.js";
import { toArgIssues, type ArgIssue } from "./formatIssues.js";
import { nameIssueOf } from "./nameChoices.js";

export type Untrusted<T> =
  { readonly success: true; readonly data: T } | { readonly success: false; readonly issues: ArgIssue[] };

/**
 * Untrusted input through `schema`, its problems as data: each issue's path,
 * code and message, and for a name that is not one of the valid ones (an
 * unknown joint, pose, camera or field) the valid choices, in the message and
 * as `choices`.
 */
export function parseUntrusted<S extends z.ZodType>(schema: S, value: unknown): Untrusted<z.output<S>> {
  const choicesAt = new Map<string, readonly string[]>();
  const parsed = schema.safeParse(value, {
    error: (issue) => {
      const named = nameIssueOf(issue);
      if (!named) return boundIssueMessage(issue);
      choicesAt.set(issueKey(issue.code, issue.path ?? []), named.choices);
      return named.message;
    },
  });
  if (parsed.success) return { success: true, data: parsed.data };
  const issues = toArgIssues(parsed.error.issues).map((issue, i): ArgIssue => {
    const raw = parsed.error.issues[i];
    const choices = raw === undefined ? undefined : choicesAt.get(issueKey(raw.code, raw.path));
    return choices === undefined ? issue : { ...issue, choices };
  });
  return { success: false, issues };
}

function issueKey(code: string | undefined, path: readonly PropertyKey[]): string {
  return `${code ?? ""}\u0000${path.map(String).join("\u0000")}`;
}
