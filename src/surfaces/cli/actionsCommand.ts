import { ACTION_STATES, type ActionState } from "../../ledger/ActionRow.js";
import { ApiClient, CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags, positiveInt } from "./parseCommandFlags.js";

export const ACTIONS_HELP = `Usage: armbridge actions [ACTION_ID] [--state S] [--limit N] [--url URL] [--token T]

Prints the intent ledger of a running \`armbridge serve\` as JSON: newest first
({"actions":[...],"next_before":...}), or one action when ACTION_ID is given.

  --state S      only actions in state S: ${ACTION_STATES.join(", ")}
  --limit N      at most N actions (default 100)
${CLIENT_FLAGS_HELP}`;

export async function actionsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, { ...CLIENT_FLAG_OPTIONS, state: { type: "string" }, limit: { type: "string" } });
  const [actionId, extra] = positionals;
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)}`);
  if (values.state !== undefined && !ACTION_STATES.includes(values.state as ActionState)) {
    throw cliUsageError(`--state must be one of ${ACTION_STATES.join(", ")} (got ${JSON.stringify(values.state)})`);
  }
  const limit = positiveInt("--limit", values.limit);
  const client = ApiClient.fromFlags(values, io);
  let answer: unknown;
  if (actionId !== undefined) {
    if (values.state !== undefined || limit !== undefined) throw cliUsageError("--state and --limit apply to the list, not to one ACTION_ID");
    answer = await client.request("GET", `/v1/actions/${encodeURIComponent(actionId)}`);
  } else {
    const q = new URLSearchParams();
    if (values.state !== undefined) q.set("state", values.state);
    if (limit !== undefined) q.set("limit", String(limit));
    const qs = q.toString();
    answer = await client.request("GET", `/v1/actions${qs ? `?${qs}` : ""}`);
  }
  io.stdout.write(JSON.stringify(answer) + "\n");
  return 0;
}
