import { z } from "zod";
import { ArmbridgeError } from "../errors.js";
import { formatIssues } from "../validation/formatIssues.js";
import { configPath, type ConfigOrigins } from "./ConfigOrigins.js";
import { readBoundedJson } from "./files/readBoundedFile.js";
import { writeFileAtomic } from "./files/writeFileAtomic.js";

/**
 * armbridge's own bus calibration file, written by `armbridge calibrate`
 * and named by the config's `bus.calibration` (LeRobot's JSON is read
 * there too, busCalibration.ts). Per axis, in raw counts:
 *
 *   joints:  id, center (the count at the URDF's zero), sign (+1: counts
 *            grow with the URDF's positive rotation), range_min..range_max
 *            (the travel measured by hand), counts_per_rev, model
 *   gripper: id, closed, open, model
 *
 * A file is filled in step by step (zero, range, direction); `steps` says
 * when each was last done. Only a complete file calibrates an arm.
 */
export const ARMBRIDGE_CALIBRATION_FORMAT = "armbridge-bus-calibration/1";

const count = z.number().int().min(0).max(0xffffff);
const jointAxis = z
  .object({
    kind: z.literal("joint"),
    id: z.number().int().min(0).max(253),
    model: z.string().min(1).optional(),
    counts_per_rev: z.number().int().positive().default(4096),
    center: count.optional(),
    sign: z.union([z.literal(1), z.literal(-1)]).optional(),
    range_min: count.optional(),
    range_max: count.optional(),
  })
  .strict();
const gripperAxis = z
  .object({
    kind: z.literal("gripper"),
    id: z.number().int().min(0).max(253),
    model: z.string().min(1).optional(),
    closed: count.optional(),
    open: count.optional(),
  })
  .strict();
const stepName = z.enum(["zero", "range", "direction"]);

export const busCalibrationFileSchema = z
  .object({
    format: z.literal(ARMBRIDGE_CALIBRATION_FORMAT),
    arm: z.string(),
    protocol: z.enum(["dynamixel_2", "feetech_sts"]),
    /** Where it was taken (a device path or URL), for the record. */
    link: z.string().optional(),
    /** Step → when it was last done (ISO 8601). */
    steps: z.partialRecord(stepName, z.string()).default({}),
    axes: z.record(z.string(), z.discriminatedUnion("kind", [jointAxis, gripperAxis])),
  })
  .strict()
  .superRefine((f, ctx) => {
    const ids = new Map<number, string>();
    for (const [name, a] of Object.entries(f.axes)) {
      const other = ids.get(a.id);
      if (other !== undefined) ctx.addIssue({ code: "custom", path: ["axes", name, "id"], message: `servo id ${a.id} is also ${other}'s` });
      ids.set(a.id, name);
      if (a.kind === "joint") {
        if (a.range_min !== undefined && a.range_max !== undefined && !(a.range_min < a.range_max)) ctx.addIssue({ code: "custom", path: ["axes", name, "range_max"], message: `range_min ${a.range_min} must be below range_max ${a.range_max}` });
        if (a.center !== undefined && a.range_min !== undefined && a.range_max !== undefined && (a.center < a.range_min || a.center > a.range_max)) {
          ctx.addIssue({ code: "custom", path: ["axes", name, "center"], message: `center ${a.center} lies outside the measured range ${a.range_min}..${a.range_max}` });
        }
        for (const k of ["center", "range_min", "range_max"] as const) {
          const v = a[k];
          if (v !== undefined && v >= a.counts_per_rev) ctx.addIssue({ code: "custom", path: ["axes", name, k], message: `${v} is beyond one turn (0..${a.counts_per_rev - 1})` });
        }
      } else if (a.closed !== undefined && a.open !== undefined && a.closed === a.open) {
        ctx.addIssue({ code: "custom", path: ["axes", name, "open"], message: "closed and open must differ" });
      }
    }
  });

export type BusCalibrationFile = z.output<typeof busCalibrationFileSchema>;
export type CalibrationAxis = BusCalibrationFile["axes"][string];
export type CalibrationStep = z.output<typeof stepName>;
export const CALIBRATION_STEPS: readonly CalibrationStep[] = ["zero", "range", "direction"];

/** Whether a parsed JSON value is armbridge's calibration (as opposed to LeRobot's). */
export function isArmbridgeCalibration(raw: unknown): boolean {
  return raw !== null && typeof raw === "object" && typeof (raw as { format?: unknown }).format === "string";
}

export function parseBusCalibrationFile(raw: unknown, path: string): BusCalibrationFile {
  const parsed = busCalibrationFileSchema.safeParse(raw);
  if (!parsed.success) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: formatIssues(parsed.error.issues) });
  return parsed.data;
}

export function readBusCalibrationFile(path: string): BusCalibrationFile {
  let raw: unknown;
  try {
    raw = readBoundedJson(path, "calibration");
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  return parseBusCalibrationFile(raw, path);
}

/** Writes the file whole or not at all (a temporary file renamed over it), after checking it. */
export function writeBusCalibrationFile(path: string, file: BusCalibrationFile): void {
  const checked = parseBusCalibrationFile(file, path);
  writeFileAtomic(path, JSON.stringify(checked, null, 2) + "\n");
}

/** The axes a calibration is for: the arm's joint names and its gripper's (an ArmConfig, or a config file not yet checked). */
export interface CalibratedAxes {
  readonly arm: { readonly joints: readonly { readonly name: string }[]; readonly gripper?: { readonly name: string } | undefined };
}

/** What a file still lacks before it calibrates the arm: `joint: step`, or nothing. */
export function missingSteps(file: BusCalibrationFile, config: CalibratedAxes): string[] {
  const missing: string[] = [];
  for (const j of config.arm.joints) {
    const a = file.axes[j.name];
    if (a?.kind !== "joint") {
      missing.push(`${j.name}: not in the file`);
      continue;
    }
    if (a.center === undefined) missing.push(`${j.name}: zero`);
    if (a.range_min === undefined || a.range_max === undefined) missing.push(`${j.name}: range`);
    if (a.sign === undefined) missing.push(`${j.name}: direction`);
  }
  const g = config.arm.gripper;
  if (g) {
    const a = file.axes[g.name];
    if (a?.kind !== "gripper") missing.push(`${g.name}: not in the file`);
    else {
      if (a.closed === undefined) missing.push(`${g.name}: zero (closed)`);
      if (a.open === undefined) missing.push(`${g.name}: range (open)`);
    }
  }
  return missing;
}

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Writes armbridge's calibration into a config not yet validated (file
 * form): each joint's centre, sign, counts per turn and measured travel
 * (as range_min/range_max, so the config's checks hold every joint's
 * min..max inside what the hand sweep found), the gripper's closed/open,
 * recording in `origins` which key of the file each value came from. The
 * merged config then goes through the same schema and cross-checks as any
 * other. Returns the issues only the merge can see: a file for another
 * protocol, an incomplete file, an axis on another servo id than the
 * config's (a servo moved since calibrating is a different set-up), and an
 * axis the config does not have.
 */
export function mergeArmbridgeCalibration(raw: Raw, file: BusCalibrationFile, label: string, origins: ConfigOrigins): { raw: Raw; issues: string[] } {
  const issues: string[] = [];
  const bus = isObject(raw.bus) ? raw.bus : {};
  if (typeof bus.protocol === "string" && bus.protocol !== file.protocol) issues.push(`${label}: protocol: it was taken on a ${file.protocol} bus, the config's is ${bus.protocol}`);
  const arm = isObject(raw.arm) ? raw.arm : {};
  const joints = Array.isArray(arm.joints) ? arm.joints.map((j: unknown) => (isObject(j) ? { ...j } : j)) : [];
  const gripper = isObject(arm.gripper) ? { ...arm.gripper } : undefined;
  const names = {
    arm: {
      joints: joints.flatMap((j) => (isObject(j) && typeof j.name === "string" ? [{ name: j.name }] : [])),
      gripper: gripper ? { name: typeof gripper.name === "string" ? gripper.name : "gripper" } : undefined,
    },
  };
  const missing = missingSteps(file, names);
  if (missing.length > 0) issues.push(`${label}: it is not complete (${missing.join(", ")}): run \`armbridge calibrate\` for those steps`);
  const extra = Object.keys(file.axes).filter((n) => !names.arm.joints.some((j) => j.name === n) && names.arm.gripper?.name !== n);
  if (extra.length > 0) issues.push(`${label}: it names ${extra.join(", ")}, which the config does not have (a calibration of another arm?)`);

  const key = (name: string, k: string): string => `${label}: ${configPath(["axes", name, k])}`;
  /** The axis's servo block with the file's id, or an issue when the config puts the axis on another servo. */
  const servoOf = (axis: Raw, name: string, id: number): Raw => {
    const servo = isObject(axis.servo) ? axis.servo : {};
    if (typeof servo.id === "number" && servo.id !== id) issues.push(`${label}: ${name} is servo ${id} in the file but ${servo.id} in the config: calibrate again after moving a servo`);
    return { ...servo, id };
  };
  for (const [i, j] of joints.entries()) {
    if (!isObject(j) || typeof j.name !== "string") continue;
    const a = file.axes[j.name];
    if (a?.kind !== "joint" || a.center === undefined || a.sign === undefined || a.range_min === undefined || a.range_max === undefined) continue;
    const at = (...rest: string[]): (string | number)[] => ["arm", "joints", i, "servo", ...rest];
    j.servo = { ...servoOf(j, j.name, a.id), counts_per_rev: a.counts_per_rev, center: a.center, sign: a.sign, range_min: a.range_min, range_max: a.range_max };
    origins.set(at(), `${label}: axes.${j.name}`);
    for (const k of ["id", "counts_per_rev", "center", "sign", "range_min", "range_max"]) origins.set(at(k), key(j.name, k));
  }
  if (gripper && names.arm.gripper) {
    const name = names.arm.gripper.name;
    const a = file.axes[name];
    if (a?.kind === "gripper" && a.closed !== undefined && a.open !== undefined) {
      gripper.servo = { ...servoOf(gripper, name, a.id), closed: a.closed, open: a.open };
      origins.set(["arm", "gripper", "servo"], `${label}: axes.${name}`);
      for (const k of ["id", "closed", "open"]) origins.set(["arm", "gripper", "servo", k], key(name, k));
    }
  }
  if (!isObject(raw.arm)) return { raw, issues };
  return { raw: { ...raw, arm: { ...arm, ...(Array.isArray(arm.joints) ? { joints } : {}), ...(gripper ? { gripper } : {}) } }, issues };
}
