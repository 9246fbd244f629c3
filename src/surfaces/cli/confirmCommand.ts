import { CONFIRM_OUTCOMES } from "../../wire/vocabulary.js";
import { CONFIRM_OUTCOME_ALIASES, normaliseOperatorName, OPERATOR_NAME_RULE } from "../../bridge/portVocabulary.js";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags } from "../runtime/parseCommandFlags.js";
import { JSON_FLAG, JSON_FLAG_HELP, printRecord, wantsJson } from "./printRecords.js";
import { describeAction } from "./actionsCommand.js";
import type { ActionView } from "../../wire/index.js";

export const CONFIRM_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  outcome: { type: "string" },
  operator: { type: "string" },
  note: { type: "string" },
} as const;

export const CONFIRM_HELP = `Usage: armbridge confirm <action_id> --outcome reached|partial|not_moved --operator NAME [--note N] [--json] [--url URL] [--token T]

An operator's word on an action whose outcome is \`unknown\`: what did the arm do?
Records it with the pose the arm reports now and releases the action's joints.
\`armbridge actions <action_id>\` shows what each outcome tells the model (confirm_options).
Prints the updated action (JSON with --json or when stdout is not a terminal).
Its state then reads confirmed_reached, confirmed_partial or confirmed_not_moved.

Flags:
  --outcome reached     it reached the target
  --outcome partial     it stopped short / moved part-way (the model is told where it is now)
  --outcome not_moved   it did not move
                        (done and not_done are still accepted: reached and not_moved)
  --operator NAME       who is confirming (required; recorded in the ledger)
  --note N              what you saw, for the record
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

const OUTCOMES: readonly string[] = [...CONFIRM_OUTCOMES, ...Object.keys(CONFIRM_OUTCOME_ALIASES)];

export async function confirmCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, CONFIRM_FLAGS);
  const [actionId, extra] = positionals;
  if (!actionId)
    throw cliUsageError("name the action, e.g. `armbridge confirm act_... --outcome partial --operator Ada`");
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const outcome = values.outcome;
  if (outcome === undefined || !OUTCOMES.includes(outcome)) {
    throw cliUsageError(
      `--outcome must be one of ${OUTCOMES.join(", ")} (got ${outcome === undefined ? "nothing" : JSON.stringify(outcome)})`,
    );
  }
  if (values.operator === undefined || normaliseOperatorName(values.operator) === undefined)
    throw cliUsageError(`--operator NAME is required: say who is confirming (${OPERATOR_NAME_RULE})`);
  const client = clientFromFlags(values, io);
  const row: ActionView = await client.call("confirmAction", {
    params: { id: actionId },
    body: { outcome, operator: values.operator, ...(values.note === undefined ? {} : { note: values.note }) },
  });
  printRecord(io, wantsJson(io, values.json), row, () => describeAction(row));
  return 0;
}
