import { parseFlags, type FlagSchema, type FlagValues } from "../../commandLine/parseFlags.js";
import { cliUsageError } from "./cliUsageError.js";

/** The one flag parser, its errors turned into ARMB_ERR_CLI_USAGE naming the flag at fault (the CLI adds the command). */
export function parseCommandFlags<O extends FlagSchema>(
  args: readonly string[],
  options: O,
): { values: FlagValues<O>; positionals: string[] } {
  const parsed = parseFlags(args, options, "positionals");
  // Node's hint about `--` is dropped: each command's help says how to pass what it takes.
  if (!parsed.ok) throw cliUsageError(parsed.message.replace(/\. To specify a positional argument.*$/s, ""));
  return { values: parsed.values, positionals: parsed.positionals };
}

/** A positive integer flag, or a usage error naming it. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw cliUsageError(`${flag} must be a positive integer (got ${JSON.stringify(value)})`);
  return n;
}
