import { z } from "zod";
import { ArmbridgeError } from "../errors.js";
import { isArmbridgeCalibration, mergeArmbridgeCalibration, parseBusCalibrationFile, type BusCalibrationFile } from "./busCalibrationFile.js";
import { configPath, type ConfigOrigins } from "./ConfigOrigins.js";
import { readBoundedJson } from "./files/readBoundedFile.js";

/**
 * LeRobot's per-motor calibration file (SO-100/101, Koch):
 * `{motor: {id, drive_mode, homing_offset, range_min, range_max}}`, all
 * integers (LeRobot's MotorCalibration).
 *
 * Mapping onto `servo: {center, sign}` follows LeRobot's own degrees
 * normalisation (src/lerobot/motors/motors_bus.py `_normalize`:
 * `mid = (min_ + max_) / 2`, angle = (raw − mid) · 360 / resolution):
 * center = (range_min + range_max) / 2, sign = −1 when drive_mode is 1.
 * range_min/range_max are kept as the servo's range: LeRobot writes them
 * into Min/Max_Position_Limit (write_calibration), which clamp every goal.
 * `homing_offset` is not applied by armbridge: LeRobot writes it into the
 * servo's Homing_Offset register when it calibrates, so present positions
 * already include it. Motors match joints by name, else by servo id.
 *
 * The file is not trusted on its own: its values are merged into the config
 * and the merged config goes through the same schema and cross-checks as
 * the YAML (distinct ids, the protocol's id range, ranges within a turn),
 * with every issue naming this file and the motor's key.
 */
const lerobotMotor = z.object({
  id: z.number().int(),
  drive_mode: z.union([z.literal(0), z.literal(1)]).default(0),
  homing_offset: z.number().int().default(0),
  range_min: z.number().int(),
  range_max: z.number().int(),
});
type LeRobotMotor = z.output<typeof lerobotMotor>;

/**
 * A calibration file as read: LeRobot's motors, or armbridge's own file
 * (busCalibrationFile.ts, written by `armbridge calibrate`). `label` is how
 * issues name the file: the path as the config wrote it.
 */
export type BusCalibration =
  | { readonly format: "lerobot"; readonly label: string; readonly motors: ReadonlyMap<string, LeRobotMotor> }
  | { readonly format: "armbridge"; readonly label: string; readonly file: BusCalibrationFile };

/** Reads and shape-checks a calibration file of either format; its values are checked once merged (mergeBusCalibration). */
export function readBusCalibration(path: string, label: string): BusCalibration {
  let raw: unknown;
  try {
    raw = readBoundedJson(path, "calibration");
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: `bus.calibration: ${(error as Error).message}` }, { cause: error });
  }
  if (isArmbridgeCalibration(raw)) return { format: "armbridge", label, file: parseBusCalibrationFile(raw, path) };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: `${label}: a LeRobot calibration is an object of motors, {name: {id, drive_mode, homing_offset, range_min, range_max}}` });
  }
  const motors = new Map<string, LeRobotMotor>();
  const issues: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const parsed = lerobotMotor.safeParse(value);
    if (parsed.success) motors.set(name, parsed.data);
    else for (const i of parsed.error.issues) issues.push(`${label}: ${configPath([name, ...i.path])}: ${i.message}`);
  }
  if (issues.length > 0) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: issues.join("; ") });
  return { format: "lerobot", label, motors };
}

type Raw = Record<string, unknown>;

interface Axis {
  readonly kind: "joint" | "gripper";
  readonly name: string;
  /** Where the axis sits in the config file. */
  readonly path: readonly (string | number)[];
  readonly value: Raw;
  motor?: string;
}

/**
 * Writes a calibration into a config not yet validated (file form): each
 * axis's servo id, centre and sign, and range (joints) or closed/open
 * (gripper), recording in `origins` which motor key each value came from.
 * Returns the merged config and the issues only the merge can see: an axis
 * with no motor, and a motor that matches no axis.
 */
export function mergeBusCalibration(raw: Raw, calibration: BusCalibration, origins: ConfigOrigins): { raw: Raw; issues: string[] } {
  if (calibration.format === "armbridge") return mergeArmbridgeCalibration(raw, calibration.file, calibration.label, origins);
  const { label, motors } = calibration;
  const arm = isObject(raw.arm) ? raw.arm : {};
  const axes: Axis[] = [];
  const joints = Array.isArray(arm.joints) ? arm.joints.map((j: unknown) => (isObject(j) ? { ...j } : j)) : arm.joints;
  if (Array.isArray(joints)) {
    for (const [i, j] of joints.entries()) if (isObject(j) && typeof j.name === "string") axes.push({ kind: "joint", name: j.name, path: ["arm", "joints", i], value: j });
  }
  const gripper = isObject(arm.gripper) ? { ...arm.gripper } : arm.gripper;
  if (isObject(gripper)) axes.push({ kind: "gripper", name: typeof gripper.name === "string" ? gripper.name : "gripper", path: ["arm", "gripper"], value: gripper });

  const used = new Set<string>();
  for (const a of axes) {
    if (motors.has(a.name) && !used.has(a.name)) {
      a.motor = a.name;
      used.add(a.name);
    }
  }
  for (const a of axes) {
    if (a.motor !== undefined) continue;
    const id = servoIdOf(a.value);
    const byId = id === undefined ? undefined : [...motors].find(([name, m]) => !used.has(name) && m.id === id)?.[0];
    if (byId !== undefined) {
      a.motor = byId;
      used.add(byId);
    }
  }

  const issues: string[] = [];
  for (const a of axes) {
    if (a.motor === undefined) {
      const id = servoIdOf(a.value);
      issues.push(`${label}: has no motor for ${a.kind} ${a.name} (looked up by name${id === undefined ? "" : `, then by its servo id ${id}`}); calibrate every servo on the bus`);
      continue;
    }
    const m = motors.get(a.motor);
    if (!m) continue;
    const key = (k: string): string => `${label}: ${configPath([a.motor ?? a.name, k])}`;
    const at = (...rest: string[]): (string | number)[] => [...a.path, "servo", ...rest];
    const servo = isObject(a.value.servo) ? a.value.servo : {};
    origins.set(at(), `${label}: ${a.motor}`);
    origins.set(at("id"), key("id"));
    if (a.kind === "joint") {
      a.value.servo = { ...servo, id: m.id, center: (m.range_min + m.range_max) / 2, sign: m.drive_mode === 1 ? -1 : 1, range_min: m.range_min, range_max: m.range_max };
      origins.set(at("center"), `${label}: ${a.motor}.range_min..range_max (center is their midpoint)`);
      origins.set(at("sign"), key("drive_mode"));
      origins.set(at("range_min"), key("range_min"));
      origins.set(at("range_max"), key("range_max"));
    } else {
      // The gripper's range is its closed..open travel, in the file's order.
      const [closed, open] = m.drive_mode === 1 ? (["range_max", "range_min"] as const) : (["range_min", "range_max"] as const);
      a.value.servo = { ...servo, id: m.id, closed: m[closed], open: m[open] };
      origins.set(at("closed"), key(closed));
      origins.set(at("open"), key(open));
    }
  }
  for (const name of motors.keys()) {
    if (!used.has(name)) issues.push(`${label}: ${name}: matches no joint or gripper of the config, by name or by servo id (a calibration of another arm?)`);
  }
  if (!isObject(raw.arm)) return { raw, issues };
  const merged: Raw = { ...arm };
  if (Array.isArray(joints)) merged.joints = joints;
  if (isObject(gripper)) merged.gripper = gripper;
  return { raw: { ...raw, arm: merged }, issues };
}

function isObject(v: unknown): v is Raw {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function servoIdOf(axis: Raw): number | undefined {
  const servo = axis.servo;
  return isObject(servo) && typeof servo.id === "number" ? servo.id : undefined;
}
