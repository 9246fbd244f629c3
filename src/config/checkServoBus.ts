import type { z } from "zod";
import { countOfJointPosition, SERVO_ID_RANGE, type ServoBusProtocol } from "./servoBusLimits.js";

/** The part of an arm config (file form, after defaults) the bus checks read. */
export interface ServoBusArm {
  readonly joints: readonly {
    readonly name: string;
    readonly min: number;
    readonly max: number;
    readonly servo?: { readonly id: number; readonly counts_per_rev: number; readonly center: number; readonly sign: number; readonly range_min?: number | undefined; readonly range_max?: number | undefined } | undefined;
  }[];
  readonly gripper?: { readonly name: string; readonly servo?: { readonly id: number; readonly counts_per_rev: number; readonly closed: number; readonly open: number } | undefined } | undefined;
}

type Path = (string | number)[];

/**
 * The cross-checks of an arm on a servo bus, run on the config as merged
 * from every source (the YAML and a calibration file alike): every axis has
 * a servo; ids are in the protocol's range and distinct across joints and
 * gripper; a servo's range is a range within one turn; and every position a
 * joint may be sent to maps to a count the servo will go to (its range, else
 * the turn). Issues carry the path of the offending key, so an error names
 * the file and key that set it (configOrigins).
 */
export function checkServoBus(protocol: ServoBusProtocol, arm: ServoBusArm, ctx: z.RefinementCtx): void {
  const issue = (path: Path, message: string): void => ctx.addIssue({ code: "custom", path, message });
  const idRange = SERVO_ID_RANGE[protocol];
  const owners = new Map<number, string>();
  const claim = (id: number, who: string, path: Path): void => {
    if (id < idRange.min || id > idRange.max) issue(path, `servo id ${id} of ${who} is outside ${protocol}'s ids ${idRange.min}–${idRange.max}`);
    const other = owners.get(id);
    if (other !== undefined) issue(path, `servo id ${id} is used by both ${other} and ${who}`);
    owners.set(id, who);
  };

  for (const [i, j] of arm.joints.entries()) {
    const at = (...rest: Path): Path => ["arm", "joints", i, ...rest];
    const s = j.servo;
    if (!s) {
      issue(at("servo"), `joint ${j.name} needs a servo: {id, counts_per_rev, center, sign} on a bus`);
      continue;
    }
    claim(s.id, j.name, at("servo", "id"));
    const turn = s.counts_per_rev - 1;
    if (s.center < 0 || s.center > turn) issue(at("servo", "center"), `center ${s.center} is outside one turn of the servo, 0..${turn} counts`);
    const given = s.range_min !== undefined || s.range_max !== undefined;
    if (given && (s.range_min === undefined || s.range_max === undefined)) {
      issue(at("servo"), "give both range_min and range_max, or neither");
      continue;
    }
    const lo = s.range_min ?? 0;
    const hi = s.range_max ?? turn;
    if (given) {
      if (!(lo < hi)) {
        issue(at("servo", "range_max"), `range_min ${lo} must be below range_max ${hi}`);
        continue;
      }
      if (hi > turn) {
        issue(at("servo", "range_max"), `range_max ${hi} is beyond one turn of the servo, 0..${turn} counts`);
        continue;
      }
    }
    const what = given ? `the servo's range ${lo}..${hi}, which clamps every goal` : `one turn of the servo, 0..${turn}`;
    for (const [key, position] of [["min", j.min], ["max", j.max]] as const) {
      const count = countOfJointPosition(s, position);
      if (count >= lo && count <= hi) continue;
      const path = given ? at("servo", count < lo ? "range_min" : "range_max") : at(key);
      issue(path, `joint ${j.name}'s ${key} ${position} rad is servo count ${Math.round(count)}, outside ${what}: narrow min/max or recalibrate`);
    }
  }

  const g = arm.gripper;
  if (!g) return;
  if (!g.servo) {
    issue(["arm", "gripper", "servo"], "the gripper needs a servo: {id, closed, open} on a bus");
    return;
  }
  claim(g.servo.id, g.name, ["arm", "gripper", "servo", "id"]);
  if (g.servo.closed === g.servo.open) issue(["arm", "gripper", "servo", "open"], `closed and open are both count ${g.servo.open}: the gripper could not move (a calibration's range_min must be below its range_max)`);
  const turn = g.servo.counts_per_rev - 1;
  for (const key of ["closed", "open"] as const) {
    const count = g.servo[key];
    if (count < 0 || count > turn) issue(["arm", "gripper", "servo", key], `${key} ${count} is outside one turn of the servo, 0..${turn} counts`);
  }
}
