import { parseArgs } from "node:util";
import type { OtherArmPolicy } from "../../bridge/bindLedgerToArm.js";
import type { TransportChoice } from "../../bridge/createTransport.js";
import type { FlagSchema } from "../../commandLine/parseFlags.js";
import { cliUsageError } from "./cliUsageError.js";

/** The Bridge.start options that come from the command line. */
export interface BridgeFlagOptions<T extends TransportChoice | undefined = TransportChoice> {
  /** Path of an arm config; undefined → the default simulated arm. */
  readonly config: string | undefined;
  readonly transport: T;
  /** Folder of the intent ledger; undefined → the per-user default for the arm (Bridge.start resolves it). */
  readonly dataDir: string | undefined;
  /** `--adopt-ledger`: a ledger recorded against another arm identity is taken over instead of refused. */
  readonly otherArm: OtherArmPolicy;
}

export interface ParsedBridgeFlags<T extends TransportChoice | undefined = TransportChoice> {
  readonly options: BridgeFlagOptions<T>;
  /** Every argument that is not a bridge flag, in order. */
  readonly rest: string[];
}

/**
 * Whether the command must be told which arm to use. `demo` starts its own
 * simulator, so for it the transport is optional.
 */
export interface ParseBridgeFlagsOptions {
  readonly transport: "required" | "optional";
}

/** Where `demo` makes its per-run folders (each run is a new simulated arm). The other commands default to defaultDataDir(). */
export const DEFAULT_DATA_DIR = "./data";

export const BRIDGE_FLAGS_HELP = `Bridge flags:
  --serial LINK        firmware over a serial line: a device path (/dev/ttyACM0, a PTY) or tcp://HOST:PORT
  --ros                ros2_control controllers through rclnodejs (needs a sourced ROS 2)
  --ros-args ...       arguments for ROS (implies --ros); they run to the end or to a lone "--"
  --params-file FILE   ROS parameters file (implies --ros)
  --config FILE        arm config (YAML/JSON); default: the simulated 6-axis arm
  --data DIR           folder of the intent ledger (default $XDG_STATE_HOME/armbridge/<arm name>,
                       else ~/.local/state/armbridge/<arm name>); one bridge per folder
  --adopt-ledger       take over a ledger recorded against another arm identity (the same arm,
                       renamed or with new firmware); otherwise such a ledger is refused`;

/** What a command that drives an arm says when it was given none: what is missing, and the flags that give it. */
export const NO_ARM_GIVEN =
  "no arm given: say which arm to drive with --serial LINK (a device path, or tcp://HOST:PORT as `armbridge-sim --link tcp` prints it) or --ros (ros2_control)";

/**
 * The bridge flags, declared once. `--ros-args` is a switch here: what
 * follows it, up to a lone "--", is rcl's and is taken whole.
 */
export const BRIDGE_FLAGS = {
  serial: { type: "string" },
  ros: { type: "boolean" },
  "ros-args": { type: "boolean" },
  "params-file": { type: "string" },
  config: { type: "string" },
  data: { type: "string" },
  "adopt-ledger": { type: "boolean" },
} as const satisfies FlagSchema;

/** Every bridge flag by name (without the dashes), for the help checks. */
export const BRIDGE_FLAG_NAMES: readonly string[] = Object.keys(BRIDGE_FLAGS);

/**
 * Takes the shared bridge flags out of `argv` and leaves the rest to the
 * subcommand, in order, for its own parse under its own schema. Read with
 * the one parser (node:util parseArgs, not strict, so the subcommand's flags
 * pass through untouched). Throws ARMB_ERR_CLI_USAGE naming the flag at fault.
 */
export function parseBridgeFlags(argv: readonly string[]): ParsedBridgeFlags;
export function parseBridgeFlags(
  argv: readonly string[],
  options: { readonly transport: "required" },
): ParsedBridgeFlags;
export function parseBridgeFlags(
  argv: readonly string[],
  options: ParseBridgeFlagsOptions,
): ParsedBridgeFlags<TransportChoice | undefined>;
export function parseBridgeFlags(
  argv: readonly string[],
  options: ParseBridgeFlagsOptions = { transport: "required" },
): ParsedBridgeFlags<TransportChoice | undefined> {
  const { rosArgs, others } = takeRosArgs(argv);
  const { values, switches, rest } = takeBridgeFlags(others);
  let ros = rosArgs !== undefined || switches.has("ros");
  const adopt = switches.has("adopt-ledger");
  const serial = values.get("serial");
  const paramsFile = values.get("params-file");
  if (paramsFile !== undefined) ros = true;
  if (serial !== undefined && ros) {
    throw cliUsageError(
      "--serial and --ros (or --ros-args / --params-file) were both given; choose one arm: --serial LINK for firmware, --ros for ros2_control",
    );
  }
  let transport: TransportChoice | undefined;
  if (serial !== undefined) transport = { kind: "serial", link: serial };
  else if (ros) transport = { kind: "ros2", argv: ["armbridge", ...(rosArgs ?? [])], paramsFile };
  else if (options.transport === "required") {
    throw cliUsageError(NO_ARM_GIVEN);
  }
  return {
    options: {
      config: values.get("config"),
      transport,
      dataDir: values.get("data"),
      otherArm: adopt ? "adopt" : "refuse",
    },
    rest,
  };
}

/**
 * `--ros-args` and what follows it up to a lone "--" belong to rcl, taken
 * whole in the form it parses (`--ros-args` included); the "--" that ends
 * them is theirs too.
 */
function takeRosArgs(argv: readonly string[]): { rosArgs: string[] | undefined; others: string[] } {
  let rosArgs: string[] | undefined;
  const others: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg !== "--ros-args") {
      others.push(arg);
      continue;
    }
    const end = argv.indexOf("--", i + 1);
    const stop = end === -1 ? argv.length : end;
    rosArgs = [...(rosArgs ?? []), ...argv.slice(i, stop)];
    i = stop;
  }
  return { rosArgs, others };
}

interface TakenBridgeFlags {
  readonly values: Map<string, string>;
  readonly switches: Set<string>;
  readonly rest: string[];
}

function takeBridgeFlags(args: readonly string[]): TakenBridgeFlags {
  const { tokens } = parseArgs({
    args: [...args],
    options: BRIDGE_FLAGS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values = new Map<string, string>();
  const switches = new Set<string>();
  const taken = new Set<number>();
  for (const token of tokens) {
    if (token.kind !== "option" || !token.rawName.startsWith("--") || !Object.hasOwn(BRIDGE_FLAGS, token.name))
      continue;
    const flag = BRIDGE_FLAGS[token.name as keyof typeof BRIDGE_FLAGS];
    taken.add(token.index);
    if (flag.type === "boolean") {
      if (token.value !== undefined) throw cliUsageError(`${token.rawName} takes no value`);
      switches.add(token.name);
      continue;
    }
    const value = token.value;
    // A flag's name where its value should be means the value was left out.
    if (value === undefined || (!token.inlineValue && value.startsWith("--") && value.length > 2))
      throw cliUsageError(`${token.rawName} needs a value`);
    if (!token.inlineValue) taken.add(token.index + 1);
    if (value.length === 0) throw cliUsageError(`${token.rawName} needs a non-empty value`);
    if (values.has(token.name)) throw cliUsageError(`${token.rawName} was given twice`);
    values.set(token.name, value);
  }
  return { values, switches, rest: args.filter((_, i) => !taken.has(i)) };
}
