import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { ArmbridgeError } from "../errors.js";
import { formatIssues } from "../validation/formatIssues.js";
import type { ArmConfig } from "./ArmConfig.js";

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
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  return parseBusCalibrationFile(raw, path);
}

/** Writes the file whole or not at all (a temporary file renamed over it), after checking it. */
export function writeBusCalibrationFile(path: string, file: BusCalibrationFile): void {
  const checked = parseBusCalibrationFile(file, path);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(checked, null, 2) + "\n");
  renameSync(temporary, path);
}

/** What a file still lacks before it calibrates the arm: `joint: step`, or nothing. */
export function missingSteps(file: BusCalibrationFile, config: ArmConfig): string[] {
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

/**
 * The config with the file's centres, signs and gripper travel in place of
 * its own. The file must be complete, for this arm's protocol, and name the
 * same servo for each axis as the config does (a servo moved to another id
 * since calibrating is a different set-up: calibrate again).
 */
export function applyArmbridgeCalibration(config: ArmConfig, file: BusCalibrationFile, path: string): ArmConfig {
  const problems: string[] = [];
  if (config.bus && file.protocol !== config.bus.protocol) problems.push(`it was taken on a ${file.protocol} bus, the config's is ${config.bus.protocol}`);
  const missing = missingSteps(file, config);
  if (missing.length > 0) problems.push(`it is not complete (${missing.join(", ")}): run \`armbridge calibrate\` for those steps`);
  const idOf = (name: string, configured: number | undefined): void => {
    const a = file.axes[name];
    if (a && configured !== undefined && a.id !== configured) problems.push(`${name} is servo ${a.id} in the file but ${configured} in the config`);
  };
  for (const j of config.arm.joints) idOf(j.name, j.servo?.id);
  if (config.arm.gripper) idOf(config.arm.gripper.name, config.arm.gripper.servo?.id);
  const extra = Object.keys(file.axes).filter((n) => !config.arm.joints.some((j) => j.name === n) && config.arm.gripper?.name !== n);
  if (extra.length > 0) problems.push(`it names ${extra.join(", ")}, which the config does not have`);
  if (problems.length > 0) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: problems.join("; ") });
  return {
    ...config,
    arm: {
      ...config.arm,
      joints: config.arm.joints.map((j) => {
        const a = file.axes[j.name];
        if (a?.kind !== "joint" || !j.servo || a.center === undefined || a.sign === undefined) return j;
        return { ...j, servo: { ...j.servo, countsPerRev: a.counts_per_rev, center: a.center, sign: a.sign } };
      }),
      gripper: (() => {
        const g = config.arm.gripper;
        const a = g ? file.axes[g.name] : undefined;
        if (!g?.servo || a?.kind !== "gripper" || a.closed === undefined || a.open === undefined) return g;
        return { ...g, servo: { ...g.servo, closed: a.closed, open: a.open } };
      })(),
    },
  };
}
