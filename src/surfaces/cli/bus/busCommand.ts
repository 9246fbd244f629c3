import { BUS_PROTOCOLS, type BusProtocolName } from "../../../protocol/bus/index.js";
import { defaultScanBauds, scanBus, type ScannedServo } from "../../../transport/bus/setup/scanBus.js";
import { findLoneServo, setServoBaud, setServoId } from "../../../transport/bus/setup/setUpLoneServo.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { parseCommandFlags } from "../../runtime/parseCommandFlags.js";
import { isPseudoTerminal, openBusExchange } from "./openBusExchange.js";
import { formatTable, wantsJson } from "./printRecords.js";
import { JSON_FLAG_HELP } from "../printRecords.js";

export const BUS_HELP = `Usage: armbridge bus scan --serial LINK [--protocol P] [--baud B]... [--sweep] [--json]
       armbridge bus set-id --serial LINK --protocol P --id N [--from ID] [--baud B]... [--json]
       armbridge bus set-baud --serial LINK --protocol P --to B [--baud B]... [--json]

Finds and sets up the servos on a Dynamixel (Protocol 2.0) or Feetech STS bus.
Records print as a table on a terminal, else as JSON.

  scan      every servo that answers: protocol, id, model, firmware, the baud it
            answered at, its position; a hint when two servos seem to share an id.
            Default: both protocols, every baud the family can be set to (the
            factory rate first). Exit 1 when none answers.
  set-id    gives the one servo on the bus the id N (EEPROM), then checks it answers
            there. Refuses, writing nothing, unless exactly one servo answers (at any --baud).
  set-baud  sets the one servo on the bus to B baud, follows it there and checks it
            answers. Needs a link whose baud armbridge can set (a device path or rfc2217://).

New servos ship as id 1 (both families), at 57 600 baud (Dynamixel X) or 1 000 000
(Feetech STS): connect them one at a time and give each the id and baud the arm
config names (docs/bring-up.md).

Flags:
  --serial LINK      the adapter's device path (/dev/ttyUSB0, /dev/ttyACM0) or
                     rfc2217://HOST:PORT (ser2net in telnet mode: armbridge sets the baud);
                     a raw tcp:// link stays at the baud its server was given
  --protocol P       dynamixel_2 or feetech_sts (scan: default both; set-id, set-baud: required)
  --baud B           a baud to try; repeat for more (default: every baud the family can be set to)
  --sweep            scan: ping every id one by one instead of one broadcast ping per baud
  --id N             set-id: the new id
  --from ID          set-id: also refuse unless the lone servo has this id now
  --to B             set-baud: the new baud
${JSON_FLAG_HELP}`;

const SCAN_FLAGS = {
  serial: { type: "string" },
  protocol: { type: "string" },
  baud: { type: "string", multiple: true },
  sweep: { type: "boolean" },
  json: { type: "boolean" },
} as const;

const SET_UP_FLAGS = {
  ...SCAN_FLAGS,
  id: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
} as const;

/** Every flag of every bus subcommand, each named in BUS_HELP. */
export const BUS_FLAG_NAMES: readonly string[] = Object.keys(SET_UP_FLAGS);

export async function busCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) throw cliUsageError("bus needs a subcommand: scan, set-id or set-baud");
  switch (sub) {
    case "scan":
      return scan(rest, io);
    case "set-id":
      return setUp(rest, io, "id");
    case "set-baud":
      return setUp(rest, io, "baud");
    default:
      throw cliUsageError(`unknown bus subcommand ${JSON.stringify(sub)}: scan, set-id or set-baud`);
  }
}

async function scan(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, SCAN_FLAGS);
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const link = required(values.serial, "--serial LINK");
  const protocols = values.protocol === undefined ? [...BUS_PROTOCOLS] : [protocolFlag(values.protocol)];
  const asked = bauds(values.baud);
  if (isPseudoTerminal(link) && (asked === undefined || asked.length > 1)) {
    io.stderr.write(
      `armbridge bus scan: note: ${link} is a pseudo-terminal; a baud set on it reaches no wire, so what answers there answers at every baud asked\n`,
    );
  }
  const servos: ScannedServo[] = [];
  const hints: string[] = [];
  const scanned: Record<string, number[]> = {};
  for (const protocol of protocols) {
    const exchange = await openBusExchange(link, protocol, asked?.[0] ?? 1_000_000);
    try {
      const list = asked ?? defaultScanBauds(exchange);
      scanned[protocol] = list;
      const result = await scanBus(exchange, {
        bauds: list,
        method: values.sweep === true ? "sweep" : "broadcast",
        onBaud: (b) => io.stderr.write(`scanning ${protocol} at ${b} baud…\n`),
      });
      servos.push(...result.servos);
      hints.push(...result.hints);
    } finally {
      await exchange.link.close();
    }
  }
  if (wantsJson(io, values.json)) {
    io.stdout.write(JSON.stringify({ link, scanned, servos, hints }) + "\n");
  } else {
    io.stdout.write(
      formatTable(
        ["PROTOCOL", "ID", "MODEL", "FIRMWARE", "BAUD", "POSITION"],
        servos.map((s) => [
          s.protocol,
          String(s.id),
          s.model,
          s.firmware ?? "?",
          String(s.baud),
          s.position === undefined ? "?" : String(s.position),
        ]),
      ),
    );
    for (const h of hints) io.stdout.write(`hint: ${h}\n`);
  }
  if (servos.length === 0) {
    io.stderr.write(
      `armbridge bus scan: no servo answered on ${link} (${Object.entries(scanned)
        .map(([p, b]) => `${p} at ${b.join(", ")}`)
        .join("; ")}); check power, the cable and the adapter\n`,
    );
    return 1;
  }
  return 0;
}

async function setUp(argv: readonly string[], io: CliIo, what: "id" | "baud"): Promise<number> {
  const { values, positionals } = parseCommandFlags(argv, SET_UP_FLAGS);
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const command = what === "id" ? "set-id" : "set-baud";
  const link = required(values.serial, "--serial LINK");
  const protocol = protocolFlag(required(values.protocol, "--protocol dynamixel_2|feetech_sts"));
  const asked = bauds(values.baud);
  const target =
    what === "id" ? integer(required(values.id, "--id N"), "--id") : integer(required(values.to, "--to BAUD"), "--to");
  const from = values.from === undefined ? undefined : integer(values.from, "--from");
  if (what === "baud" && values.id !== undefined)
    throw cliUsageError("set-baud takes --to BAUD; --id belongs to set-id");
  const exchange = await openBusExchange(link, protocol, asked?.[0] ?? 1_000_000);
  try {
    const lone = await findLoneServo(exchange, asked ?? defaultScanBauds(exchange), `bus ${command}`);
    if (from !== undefined && lone.id !== from)
      throw cliUsageError(
        `--from ${from}, but the servo on the bus has id ${lone.id} (at ${lone.baud} baud); nothing was written`,
      );
    const done = what === "id" ? await setServoId(exchange, lone, target) : await setServoBaud(exchange, lone, target);
    if (wantsJson(io, values.json)) io.stdout.write(JSON.stringify({ protocol, ...done }) + "\n");
    else
      io.stdout.write(
        `${protocol} servo (${done.model}, firmware ${done.firmware ?? "?"}): id ${done.previous.id} → ${done.id}, ${done.previous.baud} → ${done.baud} baud; it answers there\n`,
      );
    return 0;
  } finally {
    await exchange.link.close();
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw cliUsageError(`${flag} is required`);
  return value;
}

function protocolFlag(value: string): BusProtocolName {
  const p = BUS_PROTOCOLS.find((x) => x === value);
  if (!p) throw cliUsageError(`--protocol must be one of ${BUS_PROTOCOLS.join(", ")} (got ${JSON.stringify(value)})`);
  return p;
}

function integer(value: string, flag: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw cliUsageError(`${flag} must be a whole number (got ${JSON.stringify(value)})`);
  return n;
}

function bauds(values: readonly string[] | undefined): number[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  return values.flatMap((v) => v.split(",")).map((v) => integer(v.trim(), "--baud"));
}
