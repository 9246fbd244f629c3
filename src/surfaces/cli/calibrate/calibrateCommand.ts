import { dirname, resolve } from "node:path";
import type { ArmConfig } from "../../../config/ArmConfig.js";
import {
  CALIBRATION_STEPS,
  missingSteps,
  writeBusCalibrationFile,
  type CalibrationStep,
} from "../../../config/busCalibrationFile.js";
import { fromLerobot, readLerobotCalibration, toLerobot } from "../../../config/lerobotCalibrationFile.js";
import { loadConfig } from "../../../config/loadConfig.js";
import { isArmbridgeError } from "../../../errors.js";
import { protocolNamed } from "../../../protocol/bus/index.js";
import { BusExchange } from "../../../transport/bus/setup/BusExchange.js";
import { readRegister } from "../../../transport/bus/setup/handCalibration.js";
import { linkForUrl } from "../../../transport/link/openLink.js";
import type { CliIo } from "../../../commandLine/CliIo.js";
import { cliUsageError } from "../../runtime/cliUsageError.js";
import { parseCommandFlags } from "../../runtime/parseCommandFlags.js";
import { CalibrationRun } from "./CalibrationRun.js";
import { directionStep } from "./directionStep.js";
import { LineReader } from "./LineReader.js";
import { defaultCalibrationPath, pointConfigAt, refuseShippedConfig } from "./pointConfigAt.js";
import { rangeStep } from "./rangeStep.js";
import { summarizeCalibration } from "./summarizeCalibration.js";
import { zeroStep } from "./zeroStep.js";
import { writeFileAtomic } from "../../../config/files/writeFileAtomic.js";

export const CALIBRATE_HELP = `Usage: armbridge calibrate --config FILE --serial LINK [--step zero|range|direction]... [--yes] [--range-seconds S] [--range J=MIN:MAX]... [--sign J=+1|-1]... [--jog-deg D] [--jog-speed D] [--out FILE] [--import-lerobot FILE] [--export-lerobot FILE] [--json]

Measures a servo-bus arm (SO-101, Koch, any Dynamixel or Feetech arm) and writes
the calibration file its config names (bus.calibration; if it names none, FILE's
name with .calibration.json, and bus.calibration is set in the config). serve
drives a bus arm only once it is calibrated (ARMB_ERR_BUS_NOT_CALIBRATED).

Steps, in this order (default: all three); each writes the file as it ends, so a
step can be run again alone:
  zero       torque off; hold the arm in its zero pose (each joint where the URDF
             puts 0, the gripper closed): each servo's count there is its centre
  range      torque off; move every joint end to end by hand and open the gripper,
             watching the live readout: each servo's min and max (gripper: open)
  direction  with your go-ahead, each joint in turn: torque on, a slow jog of a few
             degrees and back, and "did it move the way the URDF says?" (the
             motion described in words): the joint's sign
The jog's question is read from stdin (a line: y, n or s). With --yes, --range-seconds
and --range/--sign every step runs without a person at the keyboard.

A finished calibration is checked as serve checks it (ids, and each joint's min..max
inside the travel measured); exit 1, naming each joint, when serve would refuse it.

Flags:
  --config FILE          the arm's config (its bus, joints and servos)
  --serial LINK          the bus adapter (device path, tcp://, rfc2217://)
  --step S               zero, range or direction; repeat for more (default: all three, in that order)
  --yes                  do not wait for Enter, do not ask before the jogs (the arm is in place)
  --range-seconds S      record the range for S seconds instead of until Enter
  --range J=MIN:MAX      a joint's range in counts, measured some other way (repeatable)
  --sign J=+1|-1         a joint's sign, known already: no jog for it (repeatable)
  --jog-deg D            how far each joint is jogged (default 5)
  --jog-speed D          degrees per second of the jog (default 10)
  --out FILE             write here instead of the config's bus.calibration
  --import-lerobot FILE  take the calibration from LeRobot's JSON instead of measuring
                         (LeRobot keeps it in ~/.cache/huggingface/lerobot/calibration/
                         robots/<robot type>/<id>.json; see docs/servo-bus.md)
  --export-lerobot FILE  also write LeRobot's JSON (its zero is the middle of each range)
  --json                 progress, questions and the result as JSON lines on stdout`;

export const CALIBRATE_FLAGS = {
  config: { type: "string" },
  serial: { type: "string" },
  step: { type: "string", multiple: true },
  yes: { type: "boolean" },
  "range-seconds": { type: "string" },
  range: { type: "string", multiple: true },
  sign: { type: "string", multiple: true },
  "jog-deg": { type: "string" },
  "jog-speed": { type: "string" },
  out: { type: "string" },
  "import-lerobot": { type: "string" },
  "export-lerobot": { type: "string" },
  json: { type: "boolean" },
} as const;

/** What calibrate was asked, checked (and the config read without its calibration) before the bus is opened. */
type CalibrateRequest = ReturnType<typeof calibrateRequestOf>;

/** `armbridge calibrate`: the steps asked for on the bus, then the file, the config pointed at it, and the checks serve would make. */
export async function calibrateCommand(
  argv: readonly string[],
  io: CliIo,
  controls: { readonly signal?: AbortSignal } = {},
): Promise<number> {
  const request = calibrateRequestOf(argv);
  const { values, config, bus, importing, path } = request;
  const json = values.json === true;
  const lines = new LineReader(io.stdin);
  let exchange: BusExchange | undefined;
  if (values.serial !== undefined) {
    const link = linkForUrl(values.serial, { baudRate: bus.baud });
    await link.open(controls.signal);
    exchange = new BusExchange(link, protocolNamed(bus.protocol), bus.baud);
  }
  try {
    const run = new CalibrationRun({
      config,
      path,
      exchange,
      io,
      lines,
      json,
      yes: values.yes === true,
      link: values.serial,
      signal: controls.signal,
    });
    if (importing !== undefined) {
      run.draft = fromLerobot(readLerobotCalibration(importing), config, importing);
      writeBusCalibrationFile(path, run.draft);
      run.say(`imported ${importing} (LeRobot): written to ${path}`, { event: "imported", from: importing, path });
      if (exchange) await compareHomingOffsets(run, exchange, readLerobotCalibration(importing));
    }
    for (const step of request.steps) {
      if (step === "zero") await zeroStep(run);
      else if (step === "range") await rangeStep(run, { seconds: request.rangeSeconds, given: request.ranges });
      else await directionStep(run, { jogDeg: request.jogDeg, degPerSecond: request.jogSpeed, given: request.signs });
    }
    return await finishCalibration(run, request);
  } finally {
    lines.close();
    await exchange?.link.close();
  }
}

function calibrateRequestOf(argv: readonly string[]) {
  const { values, positionals } = parseCommandFlags(argv, CALIBRATE_FLAGS);
  if (positionals.length) throw cliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const configPath = values.config;
  if (!configPath) throw cliUsageError("--config FILE is required: the arm to calibrate");
  const importing = values["import-lerobot"];
  const steps = stepsFrom(
    values.step,
    importing !== undefined || (values["export-lerobot"] !== undefined && values.step === undefined),
  );
  if (steps.length > 0 && values.serial === undefined)
    throw cliUsageError(
      "--serial LINK is required to measure the arm (the bus adapter's device path, or tcp://HOST:PORT / rfc2217://HOST:PORT)",
    );
  const rangeSeconds =
    values["range-seconds"] === undefined ? undefined : positiveNumber(values["range-seconds"], "--range-seconds");
  const jogDeg = values["jog-deg"] === undefined ? 5 : positiveNumber(values["jog-deg"], "--jog-deg");
  if (jogDeg > 20) throw cliUsageError("--jog-deg is at most 20: a direction check needs a few degrees, not a sweep");
  const jogSpeed = values["jog-speed"] === undefined ? 10 : positiveNumber(values["jog-speed"], "--jog-speed");
  if (jogSpeed > 45) throw cliUsageError("--jog-speed is at most 45 °/s: slow enough to stop with a hand");

  // The config without its calibration: this run is what makes one (and an unfinished file would not load).
  let named: string | undefined;
  const config = loadConfig(configPath, {
    edit: (raw) => {
      const bus = raw.bus as Record<string, unknown> | undefined;
      if (typeof bus?.calibration === "string") named = bus.calibration;
      if (!bus) return raw;
      const { calibration: _c, ...rest } = bus;
      return { ...raw, bus: rest };
    },
  });
  if (!config.bus) throw cliUsageError(`${configPath} has no bus: section; calibrate is for servo-bus arms`);
  const ranges = parseAssignments(values.range, "--range", config, (v) => {
    const m = /^(\d+):(\d+)$/.exec(v);
    if (!m || Number(m[1]) >= Number(m[2]))
      throw cliUsageError(`--range takes JOINT=MIN:MAX in counts, MIN below MAX (got ${JSON.stringify(v)})`);
    return [Number(m[1]), Number(m[2])] as const;
  });
  const signs = parseAssignments(values.sign, "--sign", config, (v) => {
    if (v === "+1" || v === "1") return 1 as const;
    if (v === "-1") return -1 as const;
    throw cliUsageError(`--sign takes JOINT=+1 or JOINT=-1 (got ${JSON.stringify(v)})`);
  });
  const path =
    values.out !== undefined
      ? resolve(values.out)
      : named !== undefined
        ? resolve(dirname(resolve(configPath)), named)
        : defaultCalibrationPath(configPath);
  const willPointConfig = values.out === undefined && named === undefined;
  if (willPointConfig) refuseShippedConfig(configPath);

  return {
    values,
    configPath,
    importing,
    steps,
    rangeSeconds,
    jogDeg,
    jogSpeed,
    config,
    bus: config.bus,
    named,
    ranges,
    signs,
    path,
    willPointConfig,
  };
}

/** The config pointed at the file (or a note), the LeRobot export, the summary, and whether serve would load it: the exit code. */
async function finishCalibration(run: CalibrationRun, request: CalibrateRequest): Promise<number> {
  const { values, configPath, config, named, path, willPointConfig } = request;
  const json = values.json === true;
  if (willPointConfig) {
    const rel = pointConfigAt(configPath, path);
    run.say(`${configPath}: bus.calibration set to ${rel}`, { event: "config", path: configPath, calibration: rel });
  } else if (values.out !== undefined && named !== undefined && resolve(dirname(resolve(configPath)), named) !== path) {
    run.say(`note: ${configPath} names ${named}, not ${path}; serve reads the one the config names`);
  }
  const exportTo = values["export-lerobot"];
  if (exportTo !== undefined) await exportLerobot(run, config, exportTo);
  const missing = missingSteps(run.draft, config);
  summarizeCalibration(run);
  const refused = missing.length === 0 ? configChecksRefuse(configPath, path) : undefined;
  if (refused !== undefined) {
    run.say(`the config does not load with this calibration (serve would refuse it): ${refused}`, {
      event: "refused",
      path,
      issues: refused,
    });
  }
  if (json)
    run.emit({
      event: "calibration",
      path,
      complete: missing.length === 0,
      missing,
      loads: missing.length === 0 && refused === undefined,
      file: run.draft,
    });
  return refused === undefined ? 0 : 1;
}

/**
 * A complete calibration goes through the same merge and checks as at
 * serve (distinct ids in the protocol's range, each joint's min..max inside
 * the travel measured by hand): their issues, or undefined when it loads.
 */
function configChecksRefuse(configPath: string, calibrationPath: string): string | undefined {
  try {
    loadConfig(configPath, {
      edit: (raw) => ({
        ...raw,
        bus: { ...(raw.bus as Record<string, unknown> | undefined), calibration: calibrationPath },
      }),
    });
    return undefined;
  } catch (error) {
    if (isArmbridgeError(error, "ARMB_ERR_CONFIG_INVALID")) return String(error.details.issues ?? error.message);
    throw error;
  }
}

function stepsFrom(flags: readonly string[] | undefined, none: boolean): CalibrationStep[] {
  if (flags === undefined) return none ? [] : [...CALIBRATION_STEPS];
  const out: CalibrationStep[] = [];
  for (const f of flags.flatMap((x) => x.split(","))) {
    const step = CALIBRATION_STEPS.find((s) => s === f.trim());
    if (!step) throw cliUsageError(`--step must be one of ${CALIBRATION_STEPS.join(", ")} (got ${JSON.stringify(f)})`);
    if (!out.includes(step)) out.push(step);
  }
  // Always in the order the steps build on each other.
  return CALIBRATION_STEPS.filter((s) => out.includes(s));
}

function positiveNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw cliUsageError(`${flag} must be a positive number (got ${JSON.stringify(value)})`);
  return n;
}

function parseAssignments<V>(
  list: readonly string[] | undefined,
  flag: string,
  config: ArmConfig,
  parse: (value: string) => V,
): Map<string, V> {
  const out = new Map<string, V>();
  const names = new Set([
    ...config.arm.joints.map((j) => j.name),
    ...(config.arm.gripper ? [config.arm.gripper.name] : []),
  ]);
  for (const item of list ?? []) {
    const eq = item.indexOf("=");
    const name = eq > 0 ? item.slice(0, eq) : "";
    if (!names.has(name))
      throw cliUsageError(
        `${flag} ${JSON.stringify(item)}: no joint named ${JSON.stringify(name)} (joints: ${[...names].join(", ")})`,
      );
    out.set(name, parse(item.slice(eq + 1)));
  }
  return out;
}

/** LeRobot wrote Homing_Offset into each servo; a servo whose offset differs was recalibrated or swapped since the file was saved. */
async function compareHomingOffsets(
  run: CalibrationRun,
  exchange: BusExchange,
  lerobot: ReturnType<typeof readLerobotCalibration>,
): Promise<void> {
  const reg = exchange.protocol.table.setup.homingOffset;
  for (const [name, m] of Object.entries(lerobot)) {
    const now = await readRegister(exchange, m.id, reg, run.signal);
    if (now === undefined)
      run.say(`import: warning: servo ${m.id} (${name}) did not answer; its Homing_Offset could not be compared`, {
        event: "warning",
        joint: name,
      });
    else if (now !== m.homing_offset) {
      run.say(
        `import: warning: servo ${m.id} (${name}) holds Homing_Offset ${now}, the file says ${m.homing_offset}: its positions are not the ones the file was measured in; calibrate again`,
        { event: "warning", joint: name, homing_offset: now, file: m.homing_offset },
      );
    }
  }
}

async function exportLerobot(run: CalibrationRun, config: ArmConfig, to: string): Promise<void> {
  const missing = missingSteps(run.draft, config);
  if (missing.length > 0)
    throw cliUsageError(`--export-lerobot needs a complete calibration; still to do: ${missing.join(", ")}`);
  const offsets = new Map<number, number>();
  if (run.exchange) {
    for (const a of run.axes) {
      const v = await readRegister(run.exchange, a.id, run.exchange.protocol.table.setup.homingOffset, run.signal);
      if (v !== undefined) offsets.set(a.id, v);
    }
  }
  const { lerobot, zeroShifts } = toLerobot(run.draft, offsets);
  writeFileAtomic(to, JSON.stringify(lerobot, null, 4) + "\n");
  run.say(
    `exported LeRobot's calibration to ${to}${run.exchange ? "" : " (homing_offset 0: no --serial to read the servos' own)"}`,
    { event: "exported", path: to },
  );
  for (const [joint, shift] of Object.entries(zeroShifts)) {
    run.say(
      `export: note: LeRobot's zero for ${joint} is the middle of its range, ${shift.toFixed(1)} counts from its zero pose here: the two tools read the same pose ${((shift / 4096) * 360).toFixed(1)}° apart`,
      { event: "zero_shift", joint, counts: shift },
    );
  }
}
