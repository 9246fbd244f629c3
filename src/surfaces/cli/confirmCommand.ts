import { ApiClient, CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags } from "./parseCommandFlags.js";

export const CONFIRM_HELP = `Usage: armbridge confirm <action_id> --outcome done|not_done --operator NAME [--note N] [--url URL] [--token T]

An operator's word on an action whose outcome is \`unknown\`: did it happen?
Lifts the quarantine on its joints. Prints the updated action as JSON.

  --outcome done|not_done   what you saw: the motion happened (done) or not (not_done)
  --operator NAME           who is confirming (required; recorded in the ledger)
  --note N                  what you saw, for the record
${CLIENT_FLAGS_HELP}`;

export async function confirmCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, {
    ...CLIENT_FLAG_OPTIONS,
    outcome: { type: "string" },
    operator: { type: "string" },
    note: { type: "string" },
  });
  const [actionId, extra] = positionals;
  if (!actionId) throw cliUsageError("name the action, e.g. `armbridge confirm act_... --outcome not_done --operator Ada`");
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const outcome = values.outcome;
  if (outcome !== "done" && outcome !== "not_done") {
    throw cliUsageError(`--outcome must be done or not_done (got ${outcome === undefined ? "nothing" : JSON.stringify(outcome)})`);
  }
  if (!values.operator?.trim()) throw cliUsageError("--operator NAME is required: say who is confirming");
  const client = ApiClient.fromFlags(values, io);
  const row = await client.request("POST", `/v1/actions/${encodeURIComponent(actionId)}/confirm`, {
    outcome,
    operator: values.operator,
    ...(values.note === undefined ? {} : { note: values.note }),
  });
  io.stdout.write(JSON.stringify(row) + "\n");
  return 0;
}
