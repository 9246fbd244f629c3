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

/** The bridge flags that take a value, as typed (`--config`). */
const VALUE_FLAGS: ReadonlySet<string> = new Set(
  Object.entries(BRIDGE_FLAGS).flatMap(([name, f]) => (f.type === "string" ? [`--${name}`] : [])),
);

/**
 * Takes the shared bridge flags out of `argv` and leaves the rest to the
 * subcommand. Throws ARMB_ERR_CLI_USAGE naming the flag at fault.
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
  const values = new Map<string, string>();
  let ros = false;
  let adopt = false;
  let rosArgs: string[] | undefined;
  const rest: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--ros-args") {
      // Everything up to a lone "--" belongs to rcl, in the form it parses (`--ros-args` included).
      const end = argv.indexOf("--", i + 1);
      const stop = end === -1 ? argv.length : end;
      rosArgs = [...(rosArgs ?? []), ...argv.slice(i, stop)];
      ros = true;
      i = stop;
      continue;
    }
    if (arg === "--ros") {
      ros = true;
      continue;
    }
    if (arg === "--adopt-ledger") {
      adopt = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.has(name)) {
      rest.push(arg);
      continue;
    }
    let value: string | undefined;
    if (name !== arg) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined || (value.startsWith("--") && value.length > 2))
        throw cliUsageError(`${name} needs a value`);
      i++;
    }
    if (value.length === 0) throw cliUsageError(`${name} needs a non-empty value`);
    if (values.has(name)) throw cliUsageError(`${name} was given twice`);
    values.set(name, value);
  }

  const serial = values.get("--serial");
  const paramsFile = values.get("--params-file");
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
      config: values.get("--config"),
      transport,
      dataDir: values.get("--data"),
      otherArm: adopt ? "adopt" : "refuse",
    },
    rest,
  };
}
