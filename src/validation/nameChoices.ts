import { z } from "zod";

/**
 * What a schema's names are, for messages that list the valid ones: `what`
 * a single name is ("joint", "named pose", "camera") and `among` the set it
 * belongs to ("the arm's joints").
 */
export interface NameKind {
  readonly what: string;
  readonly among: string;
}

/**
 * The schemas whose accepted keys (a strict object) or values (an enum) are
 * names of the arm's things. Kept out of the global registry on purpose: its
 * metadata would be written into the JSON Schema the models are sent.
 */
const NAME_KINDS = z.registry<NameKind>();

/**
 * Marks `schema` as a set of names of `kind`: an unknown key of a strict
 * object, or a value outside an enum, is then refused as "no joint named
 * "x"; the arm's joints: …". Register the schema as it is used (after
 * `.describe()`/`.refine()`, which make new schemas), before `.optional()`.
 */
export function namesOf<S extends z.ZodType>(schema: S, kind: NameKind): S {
  NAME_KINDS.add(schema, kind);
  return schema;
}

/** `"a"`, or `"a", "b"`: names as the message quotes them. */
export function quoteNames(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(", ");
}

/** "no joint named "x"; the arm's joints: a, b" (or "none" when there is no choice at all). */
export function unknownNameMessage(kind: NameKind, given: readonly string[], choices: readonly string[]): string {
  const what = given.length > 1 ? `${kind.what}s` : kind.what;
  return `no ${what} named ${quoteNames(given)}; ${kind.among}: ${choices.length > 0 ? choices.join(", ") : "none"}`;
}

export interface NameIssue {
  readonly message: string;
  readonly choices: readonly string[];
}

/**
 * The message and valid choices for a zod issue about a name: an unknown key
 * of a strict object (the choices: its known keys) or a value outside an enum
 * (the choices: its values). Undefined for every other issue. Called from a
 * parse's error map, where the issue still names the schema that raised it.
 */
export function nameIssueOf(issue: z.core.$ZodRawIssue): NameIssue | undefined {
  const kind = issue.inst === undefined ? undefined : NAME_KINDS.get(issue.inst as z.ZodType);
  if (issue.code === "unrecognized_keys") {
    const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def
      ?.shape;
    const choices = shape === undefined ? [] : Object.keys(shape);
    const given = issue.keys;
    const message = kind
      ? unknownNameMessage(kind, given, choices)
      : `unknown field${given.length > 1 ? "s" : ""} ${quoteNames(given)}; the fields: ${choices.join(", ") || "none"}`;
    return { message, choices };
  }
  if (issue.code === "invalid_value") {
    const choices = issue.values.filter((v): v is string => typeof v === "string");
    if (choices.length !== issue.values.length) return undefined;
    const given = typeof issue.input === "string" ? issue.input : (JSON.stringify(issue.input) ?? String(issue.input));
    const message = kind
      ? unknownNameMessage(kind, [given], choices)
      : `${quoteNames([given])} is not one of: ${choices.join(", ")}`;
    return { message, choices };
  }
  return undefined;
}
