import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ArmbridgeError } from "../errors.js";
import { formatIssues } from "../validation/formatIssues.js";
import type { ArmConfig } from "./ArmConfig.js";
import { applyArmbridgeCalibration, isArmbridgeCalibration, parseBusCalibrationFile } from "./busCalibrationFile.js";

/**
 * LeRobot's per-motor calibration file (SO-100/101, Koch):
 * `{motor: {id, drive_mode, homing_offset, range_min, range_max}}`.
 *
 * Mapping onto `servo: {center, sign}` follows LeRobot's own degrees
 * normalisation (src/lerobot/motors/motors_bus.py `_normalize`:
 * `mid = (min_ + max_) / 2`, angle = (raw − mid) · 360 / resolution):
 * center = (range_min + range_max) / 2, sign = −1 when drive_mode is 1.
 * `homing_offset` is not applied by armbridge: LeRobot writes it into the
 * servo's Homing_Offset register when it calibrates, so present positions
 * already include it. Motors match joints by name, else by servo id.
 */
const lerobotMotor = z.object({
  id: z.number().int(),
  drive_mode: z.number().int().min(0).max(1).default(0),
  homing_offset: z.number().int().default(0),
  range_min: z.number(),
  range_max: z.number(),
});
const lerobotCalibration = z.record(z.string(), lerobotMotor);

export function applyBusCalibration(config: ArmConfig, configPath: string): ArmConfig {
  const file = config.bus?.calibration;
  if (file === undefined) return config;
  const path = resolve(dirname(configPath), file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ArmbridgeError("ARMB_ERR_CONFIG_READ", { path, reason: (error as Error).message }, { cause: error });
  }
  if (isArmbridgeCalibration(raw)) return applyArmbridgeCalibration(config, parseBusCalibrationFile(raw, path), path);
  const parsed = lerobotCalibration.safeParse(raw);
  if (!parsed.success) throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", { path, issues: formatIssues(parsed.error.issues) });
  const motors = Object.entries(parsed.data);
  const find = (name: string, id: number | undefined): z.infer<typeof lerobotMotor> | undefined => parsed.data[name] ?? motors.find(([, m]) => m.id === id)?.[1];
  return {
    ...config,
    arm: {
      ...config.arm,
      joints: config.arm.joints.map((j) => {
        const m = find(j.name, j.servo?.id);
        if (!m || !j.servo) return j;
        return { ...j, servo: { ...j.servo, id: m.id, center: (m.range_min + m.range_max) / 2, sign: m.drive_mode === 1 ? -1 : 1 } };
      }),
      gripper: (() => {
        const g = config.arm.gripper;
        const m = g ? find(g.name, g.servo?.id) : undefined;
        if (!g?.servo || !m) return g;
        // The gripper's range is its closed..open travel, in the file's order.
        return { ...g, servo: { ...g.servo, id: m.id, closed: m.drive_mode === 1 ? m.range_max : m.range_min, open: m.drive_mode === 1 ? m.range_min : m.range_max } };
      })(),
    },
  };
}
