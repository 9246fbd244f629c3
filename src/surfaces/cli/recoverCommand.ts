import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { normaliseOperatorName, OPERATOR_NAME_RULE } from "../../bridge/portVocabulary.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags } from "../runtime/parseCommandFlags.js";
import { formatTable, JSON_FLAG, JSON_FLAG_HELP, printRecord, wantsJson } from "./printRecords.js";

export const RECOVER_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  joint: { type: "string", multiple: true },
  operator: { type: "string" },
  note: { type: "string" },
} as const;

export const RECOVER_HELP = `Usage: armbridge recover [--joint NAME]... --operator NAME [--note N] [--json] [--url URL] [--token T]

An operator's step after a servo shut down on a hardware error (overload,
overheating, input voltage): look at the arm first and remove the cause.
Then, per servo: REBOOT (Dynamixel; the only way out of a shutdown) or a
check that the error has cleared (Feetech), the goal set to where the horn
is, and torque back on, so the arm holds its pose and does not jump. The
bridge never does this on its own. Prints each servo's outcome (JSON with
--json or when stdout is not a terminal).

Flags:
  --joint NAME      a joint (or the gripper) to recover; repeat for more; omitted: every servo that shut down
  --operator NAME   who is recovering (required; logged)
  --note N          what was wrong at the arm, for the log
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

export async function recoverCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, RECOVER_FLAGS);
  if (positionals.length > 0)
    throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}; name joints with --joint`);
  if (values.operator === undefined || normaliseOperatorName(values.operator) === undefined)
    throw cliUsageError(`--operator NAME is required: say who is recovering the servos (${OPERATOR_NAME_RULE})`);
  const client = clientFromFlags(values, io);
  const result: { results?: readonly { axis?: string; outcome?: string; detail?: string }[] } = await client.call(
    "recoverServos",
    {
      body: {
        operator: values.operator,
        ...(values.joint === undefined ? {} : { joints: values.joint }),
        ...(values.note === undefined ? {} : { note: values.note }),
      },
    },
  );
  printRecord(io, wantsJson(io, values.json), result, () =>
    formatTable(
      ["AXIS", "OUTCOME", "DETAIL"],
      (result.results ?? []).map((r) => [r.axis ?? "?", r.outcome ?? "?", r.detail ?? ""]),
    ),
  );
  // Exit 1 when a servo is still off, so a script does not carry on as if it were holding.
  return (result.results ?? []).every((r) => r.outcome === "recovered" || r.outcome === "not_needed") ? 0 : 1;
}
