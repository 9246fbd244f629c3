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

/**
 * What can still be read from a command line that does not parse: each of
 * the schema's flags given with a value of its type. Unknown flags, stray
 * words and a value-flag left without its value are dropped, never guessed
 * at. For a command that must act even on a bad line (`armbridge halt`).
 */
export function readFlagsLoosely<O extends FlagSchema>(args: readonly string[], schema: O): FlagValues<O> {
  const { values } = parseArgs({ args: [...args], options: schema, allowPositionals: true, strict: false });
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const flag = schema[name];
    if (flag === undefined) continue;
    const fits =
      flag.type === "boolean"
        ? typeof value === "boolean"
        : flag.multiple === true
          ? Array.isArray(value) && value.every((v) => typeof v === "string")
          : typeof value === "string";
    if (fits) kept[name] = value;
  }
  return kept as FlagValues<O>;
}
