import type { ArmConfig } from "../../config/ArmConfig.js";
import { ArmbridgeError } from "../../errors.js";

/**
 * One axis of the arm on one servo, with its count ↔ position mapping.
 * Joints: `radians = (count − center) × 2π / counts_per_rev × sign`.
 * Gripper: 0 (closed) .. 1 (open) linearly between the `closed` and `open` counts.
 */
export interface ServoAxis {
  readonly name: string;
  readonly kind: "joint" | "gripper";
  readonly id: number;
  /** Counts per unit of position (rad, or the gripper's full stroke), signed. */
  readonly countsPerUnit: number;
  /** The count at position 0. */
  readonly zeroCount: number;
  readonly gripLimit:
    { readonly currentLimit: number | undefined; readonly torqueLimit: number | undefined } | undefined;
}

export function servoAxesOf(config: ArmConfig): readonly ServoAxis[] {
  const axes: ServoAxis[] = config.arm.joints.map((j) => {
    if (!j.servo)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: `arm.joints.${j.name}.servo`,
        issues: "a joint on a bus needs a servo",
      });
    return {
      name: j.name,
      kind: "joint",
      id: j.servo.id,
      countsPerUnit: (j.servo.countsPerRev / (2 * Math.PI)) * j.servo.sign,
      zeroCount: j.servo.center,
      gripLimit: undefined,
    };
  });
  const g = config.arm.gripper;
  if (g) {
    if (!g.servo)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: "arm.gripper.servo",
        issues: "a gripper on a bus needs a servo",
      });
    axes.push({
      name: g.name,
      kind: "gripper",
      id: g.servo.id,
      countsPerUnit: g.servo.open - g.servo.closed,
      zeroCount: g.servo.closed,
      gripLimit: { currentLimit: g.servo.currentLimit, torqueLimit: g.servo.torqueLimit },
    });
  }
  // parseConfig refuses these; a config built in code must not reach the bus with them either: two axes on one id move each other.
  const byId = new Map<number, string>();
  for (const a of axes) {
    const other = byId.get(a.id);
    if (other !== undefined)
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: "arm (servo bus)",
        issues: `servo id ${a.id} is used by both ${other} and ${a.name}`,
      });
    if (a.countsPerUnit === 0 || !Number.isFinite(a.countsPerUnit))
      throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
        path: "arm (servo bus)",
        issues: `${a.name}'s servo maps no travel to counts (closed and open equal?)`,
      });
    byId.set(a.id, a.name);
  }
  return axes;
}

export const countOf = (axis: ServoAxis, position: number): number => axis.zeroCount + position * axis.countsPerUnit;
export const positionOf = (axis: ServoAxis, count: number): number => (count - axis.zeroCount) / axis.countsPerUnit;
