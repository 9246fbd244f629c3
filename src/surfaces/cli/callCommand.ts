import { randomBytes } from "node:crypto";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags, positiveInt } from "../runtime/parseCommandFlags.js";
import { JSON_FLAG, JSON_FLAG_HELP, poseText, printRecord, wantsJson } from "./printRecords.js";
import type { CallAnswerLine } from "./callAnswer.js";

export const CALL_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  args: { type: "string" },
  id: { type: "string" },
  "deadline-ms": { type: "string" },
} as const;

export const CALL_HELP = `Usage: armbridge call <tool> [--args '<json>'] [--id ID] [--deadline-ms N] [--json] [--url URL] [--token T]

Sends one function call to a running \`armbridge serve\`. On a terminal: the
result's status and the message the model reads. With --json, or whenever
stdout is not a terminal: its FunctionResponse as one JSON line,
{"id","name","response":{"output"|"error":{status,...}}}.
Exit 0 whenever a result came back (read response.*.status); 1 if the server
could not be asked. \`armbridge tools\` lists the tools and their arguments.

Flags:
  --args JSON        the tool's arguments (default {}), e.g. '{"positions":{"elbow":1.2}}'
  --id ID            call id (default a new one); re-sending an id returns its recorded result
  --deadline-ms N    run deadline for the call
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

export async function callCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, CALL_FLAGS);
  const [tool, extra] = positionals;
  if (!tool)
    throw cliUsageError('name the tool, e.g. `armbridge call move_joints --args \'{"positions":{"elbow":1.2}}\'`');
  if (extra !== undefined)
    throw cliUsageError(`unexpected argument ${JSON.stringify(extra)} (one tool per call; put arguments in --args)`);
  let args: unknown = {};
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args);
    } catch (error) {
      throw cliUsageError(`--args is not valid JSON (${(error as Error).message})`);
    }
  }
  const deadlineMs = positiveInt("--deadline-ms", values["deadline-ms"]);
  const client = clientFromFlags(values, io, "api", "long");
  const id = values.id ?? `cli_${randomBytes(6).toString("hex")}`;
  const answer: { responses: readonly CallAnswerLine[] } = await client.call("calls", {
    body: {
      calls: [{ id, name: tool, args }],
      // Recorded with the motion as who asked: without it the server takes the caller for a bare HTTP client.
      client: { kind: "cli", name: "armbridge call" },
      ...(deadlineMs === undefined ? {} : { deadline_ms: deadlineMs }),
    },
  });
  const line = answer.responses[0];
  printRecord(io, wantsJson(io, values.json), line, () => describeCallAnswer(line));
  return 0;
}

/** The status (in capitals, it is what matters), then the model's own words, then what it carries. */
export function describeCallAnswer(line: CallAnswerLine | undefined): string {
  if (!line) return "No answer.";
  const r = line.response.output ?? line.response.error;
  if (!r) return `${line.name} ${line.id}: no result`;
  const issues = r.issues ?? [];
  // The model's message lists the issues too: a person gets them once, one coded line each, after the message's lead.
  const repeated = issues.length > 0 && issues.every((i) => r.message.includes(i.message));
  const lead = repeated ? messageLead(r.message, issues[0]?.path ?? "") : r.message;
  const lines = [
    `${line.name} ${line.id}: ${r.status.toUpperCase()}${r.action_id ? ` (${r.action_id})` : ""}`,
    `  ${lead}`,
  ];
  if (r.pose) lines.push(`  Pose: ${poseText(r.pose)}`);
  if (r.error_code) lines.push(`  Code: ${r.error_code}`);
  for (const i of issues) lines.push(`  ${i.path}${i.code ? ` [${i.code}]` : ""}: ${i.message}`);
  return lines.join("\n");
}

/** The message up to where its list of issues begins ("move_joints was rejected before anything was sent"). */
function messageLead(message: string, firstPath: string): string {
  const at = firstPath ? message.indexOf(`: ${firstPath}: `) : -1;
  return at > 0 ? `${message.slice(0, at)}:` : message;
}
