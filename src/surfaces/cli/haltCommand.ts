import { normaliseOperatorName, OPERATOR_NAME_RULE } from "../../bridge/portVocabulary.js";
import type { HaltAnswer, HaltReleaseAnswer } from "../../wire/index.js";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags } from "../runtime/parseCommandFlags.js";
import { readFlagsLoosely } from "../../commandLine/parseFlags.js";
import { JSON_FLAG, JSON_FLAG_HELP, poseText, printRecord, wantsJson } from "./printRecords.js";

export const HALT_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  joint: { type: "string", multiple: true },
  operator: { type: "string" },
  note: { type: "string" },
} as const;
export const RELEASE_FLAGS = {
  ...CLIENT_FLAG_OPTIONS,
  ...JSON_FLAG,
  operator: { type: "string" },
  note: { type: "string" },
} as const;

export const HALT_HELP = `Usage: armbridge halt [--joint NAME]... [--operator NAME] [--note N] [--json] [--url URL] [--token T]

Halts the arm of a running \`armbridge serve\` now (a software halt, not an
emergency stop) and LATCHES the bridge: every motion is refused until an
operator releases it (\`armbridge release --operator NAME\`, or the console).
Motions it cuts short settle as stopped at the pose the arm reports.
Prints whether the arm confirmed the halt; exit 1 when it did not (the arm may
still be moving: look at it, and use the emergency stop if it moves).
A halt is never held back by how it was asked: a flag it does not know, or an
axis the arm lacks, still halts (every axis), then prints what was wrong and
exits 2. Only no way to reach serve (no token, a bad --url) keeps it from going.

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

/**
 * A HALT is never held back by how it was typed: a command line that does
 * not parse still halts (every axis, since its joints are unclear), and the
 * problem is printed after, with exit 2. Only a missing way to reach serve
 * (no token, a malformed --url) stops it from being sent.
 */
export async function haltCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, problem } = readHaltFlags(argv);
  const answer: HaltAnswer = await clientFromFlags(values, io).call("halt", {
    body: {
      source: "cli",
      ...(values.operator === undefined ? {} : { operator: values.operator }),
      ...(values.note === undefined ? {} : { note: values.note }),
      ...(values.joint === undefined ? {} : { joints: values.joint }),
    },
  });
  printRecord(io, wantsJson(io, values.json), answer, () =>
    [
      `${answer.halted ? "HALTED" : "HALT NOT CONFIRMED"} (${answer.halt.halt_id})`,
      `  ${answer.message}`,
      ...(answer.halt.pose ? [`  Pose: ${poseText(answer.halt.pose)}`] : []),
    ].join("\n"),
  );
  const after = [
    ...(problem ? [`ARMB_ERR_CLI_USAGE: ${problem}; the halt was sent all the same, of every axis`] : []),
    ...(answer.problems ?? []).map((p) => `${p.code}: ${p.message}`),
  ];
  for (const line of after) io.stderr.write(`armbridge halt: ${line}\n`);
  if (!answer.halted) return 1;
  return after.length > 0 ? 2 : 0;
}

/** The flags as far as they can be read: a command line that does not parse keeps only how to reach serve, who and why (never the joints). */
function readHaltFlags(argv: readonly string[]): {
  values: {
    url?: string | undefined;
    token?: string | undefined;
    json?: boolean | undefined;
    operator?: string | undefined;
    note?: string | undefined;
    joint?: string[] | undefined;
  };
  problem: string | undefined;
} {
  try {
    const { values, positionals } = parseCommandFlags(argv, HALT_FLAGS);
    if (positionals.length === 0) return { values, problem: undefined };
    return {
      values: { ...values, joint: undefined },
      problem: `unexpected argument ${JSON.stringify(positionals[0])}; name axes with --joint`,
    };
  } catch (error) {
    // Never the joints: an axis list from a line that did not parse could leave a moving axis out.
    const values = { ...readFlagsLoosely(argv, HALT_FLAGS), joint: undefined };
    return { values, problem: error instanceof Error ? error.message : String(error) };
  }
}

export async function releaseCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, RELEASE_FLAGS);
  if (positionals.length > 0) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.operator === undefined || normaliseOperatorName(values.operator) === undefined)
    throw cliUsageError(`--operator NAME is required: say who releases the halt (${OPERATOR_NAME_RULE})`);
  const answer: HaltReleaseAnswer = await clientFromFlags(values, io).call("releaseHalt", {
    body: { operator: values.operator, ...(values.note === undefined ? {} : { note: values.note }) },
  });
  printRecord(io, wantsJson(io, values.json), answer, () =>
    [answer.message, ...answer.released.map((h) => `  released ${h.halt_id} (${h.who})`)].join("\n"),
  );
  return 0;
}
