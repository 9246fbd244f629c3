import { randomBytes } from "node:crypto";
import { ApiClient, CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags, positiveInt } from "./parseCommandFlags.js";

export const CALL_HELP = `Usage: armbridge call <tool> [--args '<json>'] [--id ID] [--deadline-ms N] [--url URL] [--token T]

Sends one function call to a running \`armbridge serve\` and prints its
FunctionResponse as one JSON line: {"id","name","response":{"output"|"error":{status,...}}}.
Exit 0 whenever a result came back (read response.*.status); 1 if the server
could not be asked.

  --args JSON        the tool's arguments (default {}), e.g. '{"positions":{"elbow":1.2}}'
  --id ID            call id (default a new one); re-sending an id returns its recorded result
  --deadline-ms N    run deadline for the call
${CLIENT_FLAGS_HELP}`;

export async function callCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, {
    ...CLIENT_FLAG_OPTIONS,
    args: { type: "string" },
    id: { type: "string" },
    "deadline-ms": { type: "string" },
  });
  const [tool, extra] = positionals;
  if (!tool) throw cliUsageError("name the tool, e.g. `armbridge call move_joints --args '{\"positions\":{\"elbow\":1.2}}'`");
  if (extra !== undefined) throw cliUsageError(`unexpected argument ${JSON.stringify(extra)} (one tool per call; put arguments in --args)`);
  let args: unknown = {};
  if (values.args !== undefined) {
    try {
      args = JSON.parse(values.args);
    } catch (error) {
      throw cliUsageError(`--args is not valid JSON (${(error as Error).message})`);
    }
  }
  const deadlineMs = positiveInt("--deadline-ms", values["deadline-ms"]);
  const client = ApiClient.fromFlags(values, io);
  const id = values.id ?? `cli_${randomBytes(6).toString("hex")}`;
  const answer = (await client.request("POST", "/v1/calls", {
    calls: [{ id, name: tool, args }],
    ...(deadlineMs === undefined ? {} : { deadline_ms: deadlineMs }),
  })) as { responses: unknown[] };
  io.stdout.write(JSON.stringify(answer.responses[0]) + "\n");
  return 0;
}
