import { normaliseOperatorName, OPERATOR_NAME_RULE } from "../../ledger/operatorName.js";
import type { HaltAnswer, HaltReleaseAnswer } from "../http/wire/index.js";
import { ApiClient, CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP } from "./apiClient.js";
import type { CliIo } from "./CliIo.js";
import { cliUsageError } from "./cliUsageError.js";
import { parseCommandFlags } from "./parseCommandFlags.js";
import { JSON_FLAG, JSON_FLAG_HELP, poseText, printRecord, wantsJson } from "./printRecords.js";

export const HALT_FLAGS = { ...CLIENT_FLAG_OPTIONS, ...JSON_FLAG, joint: { type: "string", multiple: true }, operator: { type: "string" }, note: { type: "string" } } as const;
export const RELEASE_FLAGS = { ...CLIENT_FLAG_OPTIONS, ...JSON_FLAG, operator: { type: "string" }, note: { type: "string" } } as const;

export const HALT_HELP = `Usage: armbridge halt [--joint NAME]... [--operator NAME] [--note N] [--json] [--url URL] [--token T]

Halts the arm of a running \`armbridge serve\` now (a software halt, not an
emergency stop) and LATCHES the bridge: every motion is refused until an
operator releases it (\`armbridge release --operator NAME\`, or the console).
Motions it cuts short settle as stopped at the pose the arm reports.
Prints whether the arm confirmed the halt; exit 1 when it did not (the arm may
still be moving: look at it, and use the emergency stop if it moves).

Flags:
  --joint NAME       an axis to halt; repeat for more; omitted: every axis (the latch holds all)
  --operator NAME    who is halting (recorded; optional: a halt never waits for a name)
  --note N           why, for the record
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

export const RELEASE_HELP = `Usage: armbridge release --operator NAME [--note N] [--json] [--url URL] [--token T]

Releases the halt latch of a running \`armbridge serve\`: motion is accepted
again. Only a person at the arm should: the name is recorded in the ledger
with every halt it releases. Fails with ARMB_ERR_NOT_HALTED when nothing is latched.

Flags:
  --operator NAME    who releases it (required)
  --note N           why it is safe to move again, for the record
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

export async function haltCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, HALT_FLAGS);
  if (positionals.length > 0) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}; name axes with --joint`);
  const answer = (await ApiClient.fromFlags(values, io).request("POST", "/v1/halt", {
    source: "cli",
    ...(values.operator === undefined ? {} : { operator: values.operator }),
    ...(values.note === undefined ? {} : { note: values.note }),
    ...(values.joint === undefined ? {} : { joints: values.joint }),
  })) as HaltAnswer;
  printRecord(io, wantsJson(io, values.json), answer, () =>
    [`${answer.halted ? "HALTED" : "HALT NOT CONFIRMED"} (${answer.halt.halt_id})`, `  ${answer.message}`, ...(answer.halt.pose ? [`  Pose: ${poseText(answer.halt.pose)}`] : [])].join("\n"),
  );
  return answer.halted ? 0 : 1;
}

export async function releaseCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, RELEASE_FLAGS);
  if (positionals.length > 0) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.operator === undefined || normaliseOperatorName(values.operator) === undefined) throw cliUsageError(`--operator NAME is required: say who releases the halt (${OPERATOR_NAME_RULE})`);
  const answer = (await ApiClient.fromFlags(values, io).request("POST", "/v1/halt/release", {
    operator: values.operator,
    ...(values.note === undefined ? {} : { note: values.note }),
  })) as HaltReleaseAnswer;
  printRecord(io, wantsJson(io, values.json), answer, () => [answer.message, ...answer.released.map((h) => `  released ${h.halt_id} (${h.who})`)].join("\n"));
  return 0;
}
