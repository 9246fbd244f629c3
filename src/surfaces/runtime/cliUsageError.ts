import { ArmbridgeError } from "../../errors.js";

/** Bad command-line input: the CLI prints the message and exits 2. */
export function cliUsageError(message: string): ArmbridgeError {
  return new ArmbridgeError("ARMB_ERR_CLI_USAGE", { message });
}
