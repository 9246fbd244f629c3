import { parseArgs } from "node:util";
import { cliUsageError } from "./cliUsageError.js";

type FlagSpec = Readonly<
  Record<string, { readonly type: "string" | "boolean"; readonly short?: string; readonly multiple?: boolean }>
>;
type FlagValue<F extends FlagSpec[string]> = F["type"] extends "boolean"
  ? boolean
  : F["multiple"] extends true
    ? string[]
    : string;
type FlagValues<O extends FlagSpec> = { [K in keyof O]?: FlagValue<O[K]> };

/**
 * node:util parseArgs in strict mode, its errors turned into
 * ARMB_ERR_CLI_USAGE naming the flag at fault (the CLI adds the command).
 */
export function parseCommandFlags<O extends FlagSpec>(
  args: readonly string[],
  options: O,
): { values: FlagValues<O>; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    const message =
      error instanceof Error ? error.message.replace(/\. To specify a positional argument.*$/s, "") : String(error);
    throw cliUsageError(message);
  }
}

/** A positive integer flag, or a usage error naming it. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw cliUsageError(`${flag} must be a positive integer (got ${JSON.stringify(value)})`);
  return n;
}
