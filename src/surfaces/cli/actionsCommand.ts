import { ACTION_STATES, type ActionRowState } from "../../ledger/ActionRow.js";
import { ApiClient, CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags, positiveInt } from "./parseCommandFlags.js";

export const ACTIONS_HELP = `Usage: armbridge actions [ACTION_ID] [--state S] [--limit N] [--cursor C | --all] [--url URL] [--token T]

Prints the intent ledger of a running \`armbridge serve\` as JSON: newest first
({"actions":[...],"next_cursor":...}), or one action when ACTION_ID is given.
A full page ends with next_cursor; pass it as --cursor for the next page.

  --state S      only actions in state S: ${ACTION_STATES.join(", ")}
  --limit N      at most N actions per page (default 100)
  --cursor C     the page after the one that answered next_cursor C
  --all          follow next_cursor to the end and print every action in one list
${CLIENT_FLAGS_HELP}`;

interface ActionsPage {
  readonly actions: unknown[];
  readonly next_cursor: string | null;
}

export async function actionsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, {
    ...CLIENT_FLAG_OPTIONS,
    state: { type: "string" },
    limit: { type: "string" },
    cursor: { type: "string" },
    all: { type: "boolean" },
  });
  const [actionId, extra] = positionals;
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)}`);
  if (values.state !== undefined && !ACTION_STATES.includes(values.state as ActionRowState)) {
    throw cliUsageError(`--state must be one of ${ACTION_STATES.join(", ")} (got ${JSON.stringify(values.state)})`);
  }
  if (values.cursor !== undefined && values.all === true) throw cliUsageError("--cursor and --all cannot be combined: --all starts at the newest action");
  const limit = positiveInt("--limit", values.limit);
  const client = ApiClient.fromFlags(values, io);
  let answer: unknown;
  if (actionId !== undefined) {
    if (values.state !== undefined || limit !== undefined || values.cursor !== undefined || values.all === true) {
      throw cliUsageError("--state, --limit, --cursor and --all apply to the list, not to one ACTION_ID");
    }
    answer = await client.request("GET", `/v1/actions/${encodeURIComponent(actionId)}`);
  } else {
    const page = (cursor: string | undefined): Promise<ActionsPage> => {
      const q = new URLSearchParams();
      if (values.state !== undefined) q.set("state", values.state);
      if (limit !== undefined) q.set("limit", String(limit));
      if (cursor !== undefined) q.set("cursor", cursor);
      const qs = q.toString();
      return client.request("GET", `/v1/actions${qs ? `?${qs}` : ""}`) as Promise<ActionsPage>;
    };
    if (values.all === true) {
      const actions: unknown[] = [];
      let cursor: string | undefined;
      do {
        const p = await page(cursor);
        actions.push(...p.actions);
        cursor = p.next_cursor ?? undefined;
      } while (cursor !== undefined);
      answer = { actions, next_cursor: null };
    } else {
      answer = await page(values.cursor);
    }
  }
  io.stdout.write(JSON.stringify(answer) + "\n");
  return 0;
}
