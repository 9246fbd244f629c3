import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags, OPERATOR_CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { normaliseOperatorName, OPERATOR_NAME_RULE } from "../../bridge/portVocabulary.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags } from "../runtime/parseCommandFlags.js";
import { clockOf, formatTable, JSON_FLAG, JSON_FLAG_HELP, poseText, printRecord, wantsJson } from "./printRecords.js";
import type { ApprovalsList, DecidedApprovalView } from "../../wire/index.js";

export const APPROVALS_FLAGS = { ...CLIENT_FLAG_OPTIONS, ...JSON_FLAG } as const;
export const DECISION_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  operator: { type: "string" },
  note: { type: "string" },
} as const;

export const APPROVALS_HELP = `Usage: armbridge approvals [--json] [--url URL] [--token T]

Lists the calls of a running \`armbridge serve\` that wait for an operator's
approval (config \`approval\`), oldest first: a table on a terminal; with
--json, or whenever stdout is not a terminal,
{"approvals":[{id, call_id, tool, args, resources, targets, why, requested_at, expires_at}]}.
Nothing has been sent for them; each holds its joints until approved, declined or expired.

Flags:
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

const decisionHelp = (
  verb: "approve" | "decline",
  effect: string,
): string => `Usage: armbridge ${verb} <approval_id> --operator NAME [--note N] [--json] [--url URL] [--token T]

${effect} Prints the request's final view (JSON with --json or when stdout is
not a terminal: {id, ..., decision, operator, note, decided_at}). An id that
is not pending fails with ARMB_ERR_APPROVAL_NOT_FOUND, one already decided
with ARMB_ERR_APPROVAL_DECIDED.

Flags:
  --operator NAME    who decides (required; named in the answer to the model)
  --note N           why, for the record${verb === "decline" ? " (the model is told it)" : ""}
${JSON_FLAG_HELP}
${OPERATOR_CLIENT_FLAGS_HELP}`;

export const APPROVE_HELP = decisionHelp(
  "approve",
  "Approves a waiting call (see `armbridge approvals`): its motion runs as usual, once.",
);
export const DECLINE_HELP = decisionHelp(
  "decline",
  "Declines a waiting call: it is rejected, nothing is sent, and the model is told who declined and why.",
);

export async function approvalsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, APPROVALS_FLAGS);
  if (positionals.length > 0) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const answer: ApprovalsList = await clientFromFlags(values, io).call("approvals");
  printRecord(io, wantsJson(io, values.json), answer, () =>
    answer.approvals.length === 0
      ? "Nothing waits for approval.\n"
      : formatTable(
          ["ID", "TOOL", "CALL", "TARGETS", "WHY", "EXPIRES"],
          answer.approvals.map((a) => [a.id, a.tool, a.call_id, poseText(a.targets), a.why, clockOf(a.expires_at)]),
        ),
  );
  return 0;
}

export const approveCommand = (argv: readonly string[], io: CliIo): Promise<number> => decide("approve", argv, io);
export const declineCommand = (argv: readonly string[], io: CliIo): Promise<number> => decide("decline", argv, io);

async function decide(verb: "approve" | "decline", argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, DECISION_FLAGS);
  const [id, extra] = positionals;
  if (!id)
    throw cliUsageError(
      `name the request, e.g. \`armbridge ${verb} apr_... --operator Ada\` (\`armbridge approvals\` lists them)`,
    );
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)}`);
  if (values.operator === undefined || normaliseOperatorName(values.operator) === undefined)
    throw cliUsageError(`--operator NAME is required: say who ${verb}s (${OPERATOR_NAME_RULE})`);
  const answer: DecidedApprovalView = await clientFromFlags(values, io, "operator").call(verb, {
    params: { id },
    body: { operator: values.operator, ...(values.note === undefined ? {} : { note: values.note }) },
  });
  printRecord(
    io,
    wantsJson(io, values.json),
    answer,
    () =>
      `${answer.id} ${answer.decision} by ${answer.operator ?? "?"}: ${answer.tool} (call ${answer.call_id})${answer.note ? ` \u2014 "${answer.note}"` : ""}`,
  );
  return 0;
}
