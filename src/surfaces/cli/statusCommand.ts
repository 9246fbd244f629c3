import { latchWords } from "../../bridge/portVocabulary.js";
import type { ApprovalsList, ArmStateView, HaltView } from "../../wire/index.js";
import { CLIENT_FLAG_OPTIONS, CLIENT_FLAGS_HELP, clientFromFlags } from "./apiClient.js";
import type { CliIo } from "../../commandLine/CliIo.js";
import { cliUsageError } from "../runtime/cliUsageError.js";
import { parseCommandFlags } from "../runtime/parseCommandFlags.js";
import { clockOf, JSON_FLAG, JSON_FLAG_HELP, poseText, printRecord, wantsJson } from "./printRecords.js";

export const STATUS_FLAGS = { ...CLIENT_FLAG_OPTIONS, ...JSON_FLAG } as const;

export const STATUS_HELP = `Usage: armbridge status [--json] [--url URL] [--token T]

What a running \`armbridge serve\` is doing, for a person: the arm's link,
whether the bridge is HALTED (by whom, since when: every motion is refused
until an operator releases it), the motions in flight, and what waits for an
operator (approval requests, unknown outcomes to confirm). With --json, or
whenever stdout is not a terminal: {link, halted, halt, in_flight,
approvals, pending_unknowns, message} (halt as GET /v1/state gives it).

Flags:
${JSON_FLAG_HELP}
${CLIENT_FLAGS_HELP}`;

/** `armbridge status --json`: the parts of GET /v1/state a person asks about first, and the same sentence the model reads. */
export interface StatusRecord {
  readonly link: ArmStateView["link"];
  readonly halted: boolean;
  readonly halt: HaltView | null;
  readonly in_flight: ArmStateView["in_flight"];
  readonly approvals: ApprovalsList["approvals"];
  readonly pending_unknowns: readonly { readonly action_id: string; readonly tool: string }[];
  /** The latch in words (get_arm_state says the same to a model), or that motion is accepted. */
  readonly message: string;
}

export async function statusCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, STATUS_FLAGS);
  if (positionals.length > 0) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const api = clientFromFlags(values, io);
  const [state, approvals] = (await Promise.all([api.call("state"), api.call("approvals")])) satisfies [
    ArmStateView,
    ApprovalsList,
  ];
  const record = statusRecord(state, approvals);
  printRecord(io, wantsJson(io, values.json), record, () => statusText(record));
  return 0;
}

export function statusRecord(state: ArmStateView, approvals: ApprovalsList): StatusRecord {
  const halt = state.halted ? state.halt : null;
  const message = halt
    ? latchWords({
        haltId: halt.halt_id,
        haltedAt: halt.halted_at,
        who: halt.who,
        note: halt.note,
        confirmed: halt.confirmed,
      })
    : "Not halted: motion is accepted.";
  return {
    link: state.link,
    halted: state.halted,
    halt,
    in_flight: state.in_flight,
    approvals: approvals.approvals,
    pending_unknowns: state.pending_unknowns.map((a) => ({ action_id: a.action_id, tool: a.tool })),
    message,
  };
}

/** The status for a person: one line per part, the halt first and in capitals. */
export function statusText(r: StatusRecord): string {
  const link = `${r.link.state} since ${clockOf(r.link.since)}${r.link.detail ? ` (${r.link.detail})` : ""}`;
  const lines = [
    r.halt
      ? `HALTED     since ${clockOf(r.halt.halted_at)} by ${r.halt.who} (${r.halt.halt_id})`
      : "Halted     no: motion is accepted",
    ...(r.halt ? [`           ${r.message}`] : []),
    `Link       ${link}`,
    `In flight  ${r.in_flight.length === 0 ? "nothing" : r.in_flight.map((m) => `${m.action_id} ${m.tool} → ${poseText(m.targets)}`).join("; ")}`,
    `Waiting    ${waitingText(r)}`,
  ];
  return lines.join("\n");
}

function waitingText(r: StatusRecord): string {
  const parts = [
    ...r.approvals.map(
      (a) => `approval ${a.id} (${a.tool}, call ${a.call_id}): armbridge approve|decline ${a.id} --operator NAME`,
    ),
    ...r.pending_unknowns.map((u) => `unknown ${u.action_id} (${u.tool}): armbridge confirm ${u.action_id}`),
  ];
  return parts.length === 0 ? "nothing waits for an operator" : parts.join("; ");
}
