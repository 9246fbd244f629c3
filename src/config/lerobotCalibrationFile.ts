import { z } from "zod";
import { ArmbridgeError } from "../errors.js";
import { formatIssues } from "../validation/formatIssues.js";
import type { ArmConfig } from "./ArmConfig.js";
import { ARMBRIDGE_CALIBRATION_FORMAT, type BusCalibrationFile, type CalibrationAxis } from "./busCalibrationFile.js";
import { readBoundedJson } from "./files/readBoundedFile.js";

/**
 * LeRobot's calibration JSON, `{motor: {id, drive_mode, homing_offset,
 * range_min, range_max}}` (its MotorCalibration, saved by draccus). LeRobot
 * keeps it at `$HF_LEROBOT_CALIBRATION/robots/<robot type>/<robot id>.json`
 * (teleoperators under `teleoperators/`), by default
 * `~/.cache/huggingface/lerobot/calibration/…` (HF_LEROBOT_HOME defaults to
 * `$HF_HOME/lerobot`): lerobot src/lerobot/utils/constants.py and
 * src/lerobot/robots/robot.py @ 7427f31801f944f5ec9ce53cda02862ce7d1638b.
 *
 * Its zero is the middle of the range (motors_bus.py `_normalize`, DEGREES:
 * `mid = (min + max) / 2`), after it has written `homing_offset` into the
 * servo so the pose the operator held reads half a turn
 * (`set_half_turn_homings`); it writes drive_mode 0.
 */
const lerobotMotor = z.object({
  id: z.number().int().min(0).max(253),
  drive_mode: z.union([z.literal(0), z.literal(1)]).default(0),
  homing_offset: z.number().int().default(0),
  range_min: z.number().int().min(0),
  range_max: z.number().int().min(0),
});
const lerobotFile = z.record(z.string(), lerobotMotor);
export type LerobotCalibration = z.output<typeof lerobotFile>;

export function readLerobotCalibration(path: string): LerobotCalibration {
  let raw: unknown;
  try {
    raw = readBoundedJson(path, "calibration");
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  const parsed = lerobotFile.safeParse(raw);
  if (!parsed.success) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: formatIssues(parsed.error.issues) });
  return parsed.data;
}

/**
 * An armbridge calibration from LeRobot's: each joint's centre at the
 * middle of its range (LeRobot's zero), sign −1 for drive_mode 1, the range
 * as measured; the gripper from range_min (closed) to range_max (open),
 * swapped with drive_mode 1. Motors match axes by name, else by servo id.
 */
export function fromLerobot(lerobot: LerobotCalibration, config: ArmConfig, path: string): BusCalibrationFile {
  const protocol = config.bus?.protocol;
  if (!protocol) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: "a LeRobot calibration applies to a bus arm; the config has no bus:" });
  const entries = Object.entries(lerobot);
  const find = (name: string, id: number | undefined): LerobotCalibration[string] | undefined => lerobot[name] ?? entries.find(([, m]) => m.id === id)?.[1];
  const axes: Record<string, CalibrationAxis> = {};
  const missing: string[] = [];
  for (const j of config.arm.joints) {
    const m = find(j.name, j.servo?.id);
    if (!m) {
      missing.push(j.name);
      continue;
    }
    axes[j.name] = {
      kind: "joint",
      id: m.id,
      ...(j.servo?.model === undefined ? {} : { model: j.servo.model }),
      counts_per_rev: j.servo?.countsPerRev ?? 4096,
      center: Math.round((m.range_min + m.range_max) / 2),
      sign: m.drive_mode === 1 ? -1 : 1,
      range_min: m.range_min,
      range_max: m.range_max,
    };
  }
  const g = config.arm.gripper;
  if (g) {
    const m = find(g.name, g.servo?.id);
    if (!m) missing.push(g.name);
    else axes[g.name] = { kind: "gripper", id: m.id, ...(g.servo?.model === undefined ? {} : { model: g.servo.model }), closed: m.drive_mode === 1 ? m.range_max : m.range_min, open: m.drive_mode === 1 ? m.range_min : m.range_max };
  }
  if (missing.length > 0) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: `no motor for ${missing.join(", ")} (by name, then by servo id)` });
  const at = new Date().toISOString();
  return { format: ARMBRIDGE_CALIBRATION_FORMAT, arm: config.arm.name, protocol, link: `imported from LeRobot: ${path}`, steps: { zero: at, range: at, direction: at }, axes };
}

/**
 * LeRobot's JSON from an armbridge calibration. `homingOffsets` are what the
 * servos hold in Homing_Offset (read from the bus), so LeRobot writing them
 * back changes nothing; LeRobot's zero is the middle of the range, so where
 * a centre is off the middle the two tools read the same pose differently:
 * those joints are returned in `zeroShifts` (counts) for the caller to say.
 */
export function toLerobot(file: BusCalibrationFile, homingOffsets: ReadonlyMap<number, number>): { readonly lerobot: LerobotCalibration; readonly zeroShifts: Readonly<Record<string, number>> } {
  const lerobot: LerobotCalibration = {};
  const zeroShifts: Record<string, number> = {};
  for (const [name, a] of Object.entries(file.axes)) {
    const homing_offset = homingOffsets.get(a.id) ?? 0;
    if (a.kind === "joint") {
      if (a.range_min === undefined || a.range_max === undefined || a.center === undefined || a.sign === undefined) continue;
      lerobot[name] = { id: a.id, drive_mode: a.sign < 0 ? 1 : 0, homing_offset, range_min: a.range_min, range_max: a.range_max };
      const shift = a.center - (a.range_min + a.range_max) / 2;
      if (Math.abs(shift) >= 1) zeroShifts[name] = shift;
    } else if (a.closed !== undefined && a.open !== undefined) {
      lerobot[name] = { id: a.id, drive_mode: a.closed > a.open ? 1 : 0, homing_offset, range_min: Math.min(a.closed, a.open), range_max: Math.max(a.closed, a.open) };
    }
  }
  return { lerobot, zeroShifts };
}
