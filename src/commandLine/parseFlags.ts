import { parseArgs } from "node:util";

/** The flags a command takes, in node:util parseArgs's own terms. */
export type FlagSchema = Readonly<
  Record<string, { readonly type: "string" | "boolean"; readonly short?: string; readonly multiple?: boolean }>
>;
type FlagValue<F extends FlagSchema[string]> = F["type"] extends "boolean"
  ? boolean
  : F["multiple"] extends true
    ? string[]
    : string;
export type FlagValues<O extends FlagSchema> = { [K in keyof O]?: FlagValue<O[K]> };

export type ParsedFlags<O extends FlagSchema> =
  | { readonly ok: true; readonly values: FlagValues<O>; readonly positionals: string[] }
  | { readonly ok: false; readonly message: string };

/**
 * The one parser of `armbridge`'s and `armbridge-sim`'s command lines:
 * node:util parseArgs in strict mode. A bad flag comes back as parseArgs's
 * own sentence naming it; each command words and exits its own way.
 */
export function parseFlags<O extends FlagSchema>(
  args: readonly string[],
  schema: O,
  positionals: "positionals" | "no positionals",
): ParsedFlags<O> {
  try {
    const parsed = parseArgs({
      args: [...args],
      options: schema,
      allowPositionals: positionals === "positionals",
      strict: true,
    });
    return { ok: true, values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
