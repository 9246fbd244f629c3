import { createInterface } from "node:readline/promises";
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
  ros: { type: "boolean" },
  yes: { type: "boolean" },
} as const;

export const RECOVER_HELP = `Usage: armbridge recover [--joint NAME]... --operator NAME [--note N] [--json] [--url URL] [--token T]
       armbridge recover --ros --operator NAME [--yes] [--note N] [--json] [--url URL] [--token T]

An operator's step after a servo shut down on a hardware error (overload,
overheating, input voltage): look at the arm first and remove the cause.
Then, per servo: REBOOT (Dynamixel; the only way out of a shutdown) or a
check that the error has cleared (Feetech), the goal set to where the horn
is, and torque back on, so the arm holds its pose and does not jump. The
bridge never does this on its own. Prints each servo's outcome (JSON with
--json or when stdout is not a terminal).

With --ros: the arm's own recovery after its safety system took the
controllers down (an FR3 reflex; franka_hardware's three steps: the
ErrorRecovery action, the hardware component set active, the controllers
activated). Prints the steps, then runs them in order only on your word:
--yes, or "y" typed at the prompt. Needs the operator token. The HALT the
reflex latched stays: release it (armbridge release --operator NAME) once the arm is back.

Flags:
  --ros             recover the ROS arm's controllers (see above) instead of servos
  --yes             with --ros: run the steps without asking
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
  if (values.ros === true) {
    if (values.joint !== undefined) throw cliUsageError("--joint names servos; --ros recovers the arm's controllers");
    return recoverRos(values.operator, values, io);
  }
  if (values.yes === true) throw cliUsageError("--yes goes with --ros: a servo recovery runs when asked");
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

interface RecoverRosAnswer {
  readonly ran?: boolean;
  readonly steps?: readonly { step?: string; does?: string; outcome?: string; detail?: string }[];
}

/** Shows the steps serve would run, and runs them only on the operator's word. */
async function recoverRos(
  operator: string,
  values: {
    url?: string | undefined;
    token?: string | undefined;
    note?: string | undefined;
    json?: boolean | undefined;
    yes?: boolean | undefined;
  },
  io: CliIo,
): Promise<number> {
  const client = clientFromFlags(values, io, "operator");
  const note = values.note === undefined ? {} : { note: values.note };
  const plan: RecoverRosAnswer = await client.call("recoverArm", { body: { operator, ...note } });
  const steps = plan.steps ?? [];
  io.stderr.write(
    `The arm's recovery, in order:\n${steps.map((s, i) => `  ${i + 1}. ${s.does ?? s.step}`).join("\n")}\n`,
  );
  if (!(values.yes === true || (await operatorSaysYes(io)))) {
    io.stderr.write("Nothing was run. Run it with --yes (or answer y) once the arm has been looked at.\n");
    return 2;
  }
  const ran: RecoverRosAnswer = await client.call("recoverArm", { body: { operator, ...note, run: true } });
  printRecord(io, wantsJson(io, values.json), ran, () =>
    formatTable(
      ["STEP", "OUTCOME", "DETAIL"],
      (ran.steps ?? []).map((s) => [s.step ?? "?", s.outcome ?? "?", s.detail ?? ""]),
    ),
  );
  return (ran.steps ?? []).every((s) => s.outcome === "done") ? 0 : 1;
}

/** A "y" typed at a terminal; never yes without one. */
async function operatorSaysYes(io: CliIo): Promise<boolean> {
  if (io.stdin?.isTTY !== true) return false;
  const prompt = createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^\s*y(es)?\s*$/i.test(await prompt.question("Run these steps now? [y/N] "));
  } finally {
    prompt.close();
  }
}
