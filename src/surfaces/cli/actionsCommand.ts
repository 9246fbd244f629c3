import type { ActionRowState } from "../../bridge/BridgePort.js";
import { describeClient, STATE_INPUTS, STATE_WORDS, statesOfWord } from "../../bridge/portVocabulary.js";
import type { ActionsPage, ActionView } from "../../wire/index.js";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags, positiveInt } from "../runtime/parseCommandFlags.js";
import { clockOf, formatTable, JSON_FLAG, JSON_FLAG_HELP, poseText, printRecord, wantsJson } from "./printRecords.js";

export const ACTIONS_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  state: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  all: { type: "boolean" },
} as const;

export const ACTIONS_HELP = `Usage: armbridge actions [ACTION_ID] [--state S] [--limit N] [--cursor C | --all] [--json] [--url URL] [--token T]

Lists the intent ledger of a running \`armbridge serve\`, newest first, or one
action when ACTION_ID is given. On a terminal: a table (one action: what
happened, what the model is told, its targets and evidence). With --json, or
whenever stdout is not a terminal: the API's JSON, {"actions":[...],
"next_cursor":...} or the one action. A full page ends with next_cursor; pass
it as --cursor for the next page.

Flags:
  --state S          only actions in state S: ${STATE_INPUTS.join(", ")}
                     (stopped: what the model was told of a halted or confirmed_partial motion)
  --limit N          at most N actions per page (default 100)
  --cursor C         the page after the one that answered next_cursor C
  --all              follow next_cursor to the end and print every action in one list
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

export async function actionsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, ACTIONS_FLAGS);
  const [actionId, extra] = positionals;
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const state: readonly ActionRowState[] | undefined =
    values.state === undefined ? undefined : statesOfWord(values.state);
  if (values.state !== undefined && state === undefined) {
    throw cliUsageError(`--state must be one of ${STATE_INPUTS.join(", ")} (got ${JSON.stringify(values.state)})`);
  }
  if (values.cursor !== undefined && values.all === true)
    throw cliUsageError("--cursor and --all cannot be combined: --all starts at the newest action");
  const limit = positiveInt("--limit", values.limit);
  const client = clientFromFlags(values, io);
  const json = wantsJson(io, values.json);
  if (actionId !== undefined) {
    if (values.state !== undefined || limit !== undefined || values.cursor !== undefined || values.all === true) {
      throw cliUsageError("--state, --limit, --cursor and --all apply to the list, not to one ACTION_ID");
    }
    const action: ActionView = await client.call("action", { params: { id: actionId } });
    printRecord(io, json, action, () => describeAction(action));
    return 0;
  }
  const page = (cursor: string | undefined): Promise<ActionsPage> => {
    const query: Record<string, string> = {};
    // The word as typed: the server reads the same words (stopped is two states).
    if (values.state !== undefined) query.state = values.state;
    if (limit !== undefined) query.limit = String(limit);
    if (cursor !== undefined) query.cursor = cursor;
    return client.call("actions", { query });
  };
  let answer: { actions: readonly ActionView[]; next_cursor: string | null; next_before?: number | null };
  if (values.all === true) {
    const actions: ActionView[] = [];
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
  printRecord(io, json, answer, () => actionsTable(answer.actions, answer.next_cursor));
  return 0;
}

/** One line per action: when, id, tool, who asked, state (the shared words), who approved and who settled it, what happened. */
export function actionsTable(actions: readonly ActionView[], nextCursor: string | null): string {
  if (actions.length === 0) return "No actions.\n";
  const rows = actions.map((a) => [
    clockOf(a.created_at),
    a.action_id,
    a.tool,
    a.client ? describeClient(a.client) : "-",
    STATE_WORDS[a.state].word,
    a.approval?.operator ?? "-",
    settledBy(a),
    a.description.length > 90 ? `${a.description.slice(0, 89)}…` : a.description,
  ]);
  const more = nextCursor ? `More: armbridge actions --cursor ${nextCursor}\n` : "";
  return (
    formatTable(
      ["CREATED", "ACTION", "TOOL", "ASKED BY", "STATE", "APPROVED BY", "SETTLED BY", "WHAT HAPPENED"],
      rows,
    ) + more
  );
}

function settledBy(a: ActionView): string {
  if (a.settled_by === "operator") return `operator ${a.operator ?? "?"}`;
  return a.settled_by === "none" ? "-" : a.settled_by;
}

/** One action in sentences: what happened, what the model is told, and, for an unknown one, what each answer does. */
export function describeAction(a: ActionView): string {
  const lines = [
    `${a.action_id}  ${a.tool}  ${STATE_WORDS[a.state].word} (${STATE_WORDS[a.state].means})`,
    `  call ${a.call_id}, created ${clockOf(a.created_at)}${a.settled_at ? `, settled ${clockOf(a.settled_at)} by ${settledBy(a)}` : ""}${a.timed_out ? "; our wait timed out" : ""}`,
    `  Asked by: ${a.client ? describeClient(a.client) : "not recorded"}`,
    ...(a.approval
      ? [
          `  Approved by ${a.approval.operator} at ${clockOf(a.approval.at)}${a.approval.note ? `: ${a.approval.note}` : ""}`,
        ]
      : []),
    `  What happened: ${a.description}`,
    `  The model is told: ${a.message ?? a.result.message}`,
  ];
  if (a.command) lines.push(`  Targets: ${poseText(a.command.targets)}`, `  From: ${poseText(a.command.from ?? null)}`);
  if (a.operator_note) lines.push(`  Note: ${a.operator_note}`);
  for (const n of a.evidence?.notes ?? []) lines.push(`  Evidence: ${n}`);
  for (const o of a.confirm_options ?? [])
    lines.push(
      `  armbridge confirm ${a.action_id} --outcome ${o.outcome} --operator NAME: ${o.label}. ${o.what_follows}`,
    );
  return lines.join("\n");
}
