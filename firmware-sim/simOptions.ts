import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { FaultRates } from "./faults.js";
import { parseMotionTime, type MotionTime } from "./motionTime.js";
import { BUS_PROTOCOLS, type BusProtocolName } from "../src/protocol/bus/index.js";
import { parseFlags, type FlagValues } from "../src/commandLine/parseFlags.js";

/** Everything `armbridge-sim` can be told; `startSimulator` takes the same. */
export interface SimOptions extends FaultRates {
  /** pty (socat), raw tcp (ser2net raw mode), or rfc2217 (ser2net telnet mode: the host sets the line's baud). */
  readonly link: "pty" | "tcp" | "rfc2217";
  /** TCP port; 0 = any free port. */
  readonly port: number;
  readonly seed: number;
  readonly effectsLog?: string | undefined;
  readonly motionTime: MotionTime;
  /** Axes whose next motion stalls half-way, once each (a fault on cue, for demos and tests). */
  readonly stallJoints?: readonly string[] | undefined;
  /** Axes whose next motion loses power half-way, once each: the device (or the bus's servo supply) is off for `powerLossMs`. */
  readonly powerLossJoints?: readonly string[] | undefined;
  /** How long a power loss on cue lasts (ms). Default 500. */
  readonly powerLossMs?: number | undefined;
  readonly ackDelayMs: number;
  /** Extra delay of a late reply (`--late-reply-rate`); undefined = DeviceSession's default. */
  readonly lateReplyMs?: number | undefined;
  readonly statusHz: number;
  readonly watchdogMs: number;
  /** Arm config file; undefined = the default simulated arm. */
  readonly config?: string | undefined;
  readonly baud?: number | undefined;
  /** Servo-bus mode: a bus of servos speaking this protocol instead of armbridge serial protocol v1. */
  readonly bus?: BusProtocolName | undefined;
  /** Servo-bus mode: what is physically on the bus, when not the config's servos as mounted by the config (YAML/JSON). */
  readonly busLayout?: string | undefined;
  /** Servo-bus mode: servos that warm 1 °C/s while holding torque until they trip on overheating (a fault on cue). */
  readonly heatJoints?: readonly string[] | undefined;
  /** Servo-bus mode: start temperatures (°C) by axis. */
  readonly servoTemperatures?: Readonly<Record<string, number>> | undefined;
  /** Servo-bus mode: the supply voltage every servo reads (V), instead of each model's nominal supply. */
  readonly supplyVoltage?: number | undefined;
  /** Serve the config's simulated cameras as HTTP snapshots on 127.0.0.1:PORT (0 = any free port); undefined = no camera server. */
  readonly cameraPort?: number | undefined;
}

export const USAGE = `usage: armbridge-sim [options]

A simulated arm controller speaking armbridge serial protocol v1
(docs/serial-protocol.md). Prints one JSON ready line on stdout:
  {"event":"ready","link":"tcp://127.0.0.1:PORT"} or {"event":"ready","link":"/tmp/armbridge-sim-XXXX/tty"}

  --link pty|tcp|rfc2217    link to the host (default: pty if socat is on PATH, else tcp). rfc2217 serves
                            rfc2217://127.0.0.1:PORT, where the host sets the line's baud (RFC 2217), as
                            ser2net's telnet mode does; over pty and tcp the line stays at --baud / bus.baud
  --port N                  tcp/rfc2217 port on 127.0.0.1, 0 = any free port (default 0)
  --seed N                  seed of every random fault and motion time (default 1); boot ids are random
  --effects-log FILE        append ground-truth JSONL, one line per physical event
  --motion-time SPEC        fixed:MS or lognormal:MEDIAN_MS:SIGMA; every motion takes that long
  --fail-rate P             genuine failures: MOVE refused, or faulted at start (nothing moves)
  --drop-rate P             frames lost, both directions
  --corrupt-rate P          frames with one flipped bit, both directions
  --freeze-rate P           per motion: STATUS stream freezes for 200..800 ms
  --stall-rate P            per motion: one axis stalls part-way
  --reboot-rate P           per motion: the device reboots part-way (action memory lost)
  --stall-joint A[,B...]    the next motion driving each named axis stalls half-way, once (a fault on cue)
  --power-loss-joint A[,B...]
                            the next motion driving each named axis loses power half-way, once (a fault on cue):
                            with --bus, the servo supply of the whole bus drops (every servo stops where it is,
                            torque off, RAM registers back to power-on values, present position kept); the
                            firmware reboots (a new boot id, its action memory lost) and, on --link tcp, its
                            host connection drops meanwhile, as a USB device's does
  --power-loss-ms N         how long a power loss on cue lasts (default 500): deaf and mute meanwhile
  --ack-delay-ms N          delay every reply by N ms (default 0)
  --late-reply-rate P       per reply: it leaves --late-reply-ms late, after the host's ACK timeout, so the
                            host re-sends a request the device already acted on (de-duplication path)
  --late-reply-ms N         how late a late reply is (default 400)
  --status-hz N             STATUS frames per second (default 100, 0 = none)
  --watchdog-ms N           halt motion after N ms of host silence (default 1000, 0 = off)
  --config FILE             arm config YAML/JSON (default: config/sim-arm.yaml)
  --baud N                  emulate a UART at N baud (10 bits per byte)
  --bus PROTOCOL            a servo bus instead: dynamixel_2 or feetech_sts, servos from --config's bus
                            section (docs/servo-bus.md); effects carry action_id null and a motion key
  --bus-layout FILE         with --bus: the servos physically on the bus (ids, bauds, models, how each is
                            mounted on its joint, loose servos), when not the config's servos as the config
                            mounts them (docs/bring-up.md); without it the bus is calibrated by construction
  --heat-joint A[,B...]     with --bus: each named servo warms 1 °C/s while it holds torque, until it passes its
                            Temperature_Limit (70 °C) and trips on overheating (Dynamixel: shut down until a
                            REBOOT; Feetech: unloaded, its Status bit following the temperature)
  --servo-temperature A=C[,B=C...]
                            with --bus: the named servos start at C °C (past the limit: tripped from power-on)
  --supply-voltage V        with --bus: the servo supply every servo reads (V); outside a servo's Min/Max
                            Voltage Limit its input-voltage bit is set (torque stays on)
  --camera-port N           serve the config's sim cameras as mjpg-streamer-style HTTP snapshots on
                            127.0.0.1:N (0 = any free port), rendered from the TRUE joint state;
                            the ready line then has "camera":"http://127.0.0.1:N/?action=snapshot"
  --help                    this text
`;

export type ParsedSimArgs =
  | { readonly kind: "options"; readonly options: SimOptions }
  | { readonly kind: "help" }
  | { readonly kind: "error"; readonly message: string };

export function socatOnPath(): boolean {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, "socat"), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

const STRING_FLAGS = [
  "link",
  "port",
  "seed",
  "effects-log",
  "motion-time",
  "fail-rate",
  "drop-rate",
  "corrupt-rate",
  "freeze-rate",
  "stall-rate",
  "reboot-rate",
  "stall-joint",
  "power-loss-joint",
  "power-loss-ms",
  "ack-delay-ms",
  "late-reply-rate",
  "late-reply-ms",
  "status-hz",
  "watchdog-ms",
  "config",
  "baud",
  "bus",
  "bus-layout",
  "camera-port",
  "heat-joint",
  "servo-temperature",
  "supply-voltage",
] as const;

type SimFlag = (typeof STRING_FLAGS)[number];
export const SIM_FLAGS = {
  ...(Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: "string" }])) as Record<
    SimFlag,
    { readonly type: "string" }
  >),
  help: { type: "boolean" },
} as const;
type SimFlagValues = FlagValues<typeof SIM_FLAGS>;

/** The servo-bus fault cues; a bad one adds its problem to `problems`. */
function servoBusCues(values: SimFlagValues, problems: string[]): Partial<SimOptions> {
  const temperatures: Record<string, number> = {};
  for (const entry of (values["servo-temperature"] ?? "").split(",").filter((e) => e !== "")) {
    const m = /^([^=]+)=(-?\d+(\.\d+)?)$/.exec(entry);
    if (m?.[1] !== undefined && m[2] !== undefined) temperatures[m[1]] = Number(m[2]);
    else problems.push(`--servo-temperature ${JSON.stringify(entry)} must be AXIS=CELSIUS`);
  }
  const supplyText = values["supply-voltage"];
  const supply = supplyText === undefined ? undefined : /^\d+(\.\d+)?$/.test(supplyText) ? Number(supplyText) : NaN;
  if (supply !== undefined && !(supply > 0 && supply <= 60))
    problems.push(`--supply-voltage ${JSON.stringify(supplyText)} must be a voltage in (0, 60]`);
  return {
    ...(values["heat-joint"] === undefined
      ? {}
      : { heatJoints: values["heat-joint"].split(",").filter((n) => n !== "") }),
    ...(values["servo-temperature"] === undefined ? {} : { servoTemperatures: temperatures }),
    ...(supply === undefined ? {} : { supplyVoltage: supply }),
  };
}

/** Flags given without the flag they apply to, or with one they do not apply to. */
function flagsThatNeedOthers(
  values: SimFlagValues,
  bus: BusProtocolName | undefined,
  link: SimOptions["link"],
): string[] {
  const problems: string[] = [];
  for (const flag of ["heat-joint", "servo-temperature", "supply-voltage"] as const)
    if (values[flag] !== undefined && bus === undefined) problems.push(`--${flag} needs --bus`);
  if (values["bus-layout"] !== undefined && bus === undefined) problems.push("--bus-layout needs --bus");
  if (values["camera-port"] !== undefined && bus !== undefined)
    problems.push("--camera-port applies to the serial-protocol simulator, not --bus");
  if (values.port !== undefined && link === "pty")
    problems.push("--port applies to --link tcp or rfc2217, not --link pty");
  return problems;
}

/** Parses argv (without node and script); never throws, never exits. */
export function parseSimArgs(argv: readonly string[]): ParsedSimArgs {
  const parsed = parseFlags(argv, SIM_FLAGS, "no positionals");
  if (!parsed.ok) return { kind: "error", message: parsed.message };
  const values = parsed.values;
  if (values.help) return { kind: "help" };

  const problems: string[] = [];
  const integer = (flag: SimFlag, fallback: number, min: number, max: number): number => {
    const text = values[flag];
    if (text === undefined) return fallback;
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      problems.push(`--${flag} ${JSON.stringify(text)} must be an integer in ${min}..${max}`);
    return n;
  };
  const probability = (flag: SimFlag): number => {
    const text = values[flag];
    if (text === undefined) return 0;
    const p = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!(p >= 0 && p <= 1)) problems.push(`--${flag} ${JSON.stringify(text)} must be a probability in [0, 1]`);
    return p;
  };

  // Asking for a port means TCP, whatever is installed.
  let link: "pty" | "tcp" | "rfc2217" = values.port === undefined && socatOnPath() ? "pty" : "tcp";
  if (values.link !== undefined) {
    if (values.link === "pty" || values.link === "tcp" || values.link === "rfc2217") link = values.link;
    else problems.push(`--link ${JSON.stringify(values.link)} must be pty, tcp or rfc2217`);
  }
  let motionTime: MotionTime = { kind: "profile" };
  if (values["motion-time"] !== undefined) {
    const parsed = parseMotionTime(values["motion-time"]);
    if (typeof parsed === "string") problems.push(parsed);
    else motionTime = parsed;
  }
  const bus = BUS_PROTOCOLS.find((p) => p === values.bus);
  if (values.bus !== undefined && bus === undefined)
    problems.push(`--bus ${JSON.stringify(values.bus)} must be one of ${BUS_PROTOCOLS.join(", ")}`);
  const options: SimOptions = {
    ...(bus === undefined ? {} : { bus }),
    link,
    port: integer("port", 0, 0, 65535),
    seed: integer("seed", 1, 0, 0xffffffff),
    effectsLog: values["effects-log"],
    motionTime,
    failRate: probability("fail-rate"),
    dropRate: probability("drop-rate"),
    corruptRate: probability("corrupt-rate"),
    freezeRate: probability("freeze-rate"),
    stallRate: probability("stall-rate"),
    rebootRate: probability("reboot-rate"),
    ...(values["stall-joint"] === undefined
      ? {}
      : { stallJoints: values["stall-joint"].split(",").filter((n) => n !== "") }),
    ...(values["power-loss-joint"] === undefined
      ? {}
      : { powerLossJoints: values["power-loss-joint"].split(",").filter((n) => n !== "") }),
    ...(values["power-loss-ms"] === undefined ? {} : { powerLossMs: integer("power-loss-ms", 500, 0, 600_000) }),
    ackDelayMs: integer("ack-delay-ms", 0, 0, 600_000),
    ...(values["late-reply-rate"] === undefined ? {} : { lateReplyRate: probability("late-reply-rate") }),
    ...(values["late-reply-ms"] === undefined ? {} : { lateReplyMs: integer("late-reply-ms", 400, 0, 600_000) }),
    statusHz: integer("status-hz", 100, 0, 1000),
    watchdogMs: integer("watchdog-ms", 1000, 0, 0xffffffff),
    config: values.config,
    baud: values.baud === undefined ? undefined : integer("baud", 115200, 300, 100_000_000),
    ...(values["camera-port"] === undefined ? {} : { cameraPort: integer("camera-port", 0, 0, 65535) }),
    ...(values["bus-layout"] === undefined ? {} : { busLayout: values["bus-layout"] }),
  };
  const servoCues = servoBusCues(values, problems);
  problems.push(...flagsThatNeedOthers(values, bus, link));
  if (problems.length > 0) return { kind: "error", message: problems.join("; ") };
  return { kind: "options", options: { ...options, ...servoCues } };
}
