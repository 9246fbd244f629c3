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

/** One joint's servo: which id, and how its counts map to radians. */
export interface JointServo {
  readonly id: number;
  readonly countsPerRev: number;
  readonly sign: number;
  readonly center: number;
}

/** The gripper's servo: which id, its closed and open counts, and the grip limits it is armed with. */
export interface GripperServo {
  readonly id: number;
  readonly closed: number;
  readonly open: number;
  readonly currentLimit?: number | undefined;
  readonly torqueLimit?: number | undefined;
}

/**
 * What the axis maths reads of an arm: the servo of each joint and of the
 * gripper. The arm config satisfies it as it is; the protocol names only what
 * it reads, so it stands below the config.
 */
export interface ServoMounts {
  readonly arm: {
    readonly joints: readonly { readonly name: string; readonly servo?: JointServo | undefined }[];
    readonly gripper?: { readonly name: string; readonly servo?: GripperServo | undefined } | undefined;
  };
}

export function servoAxesOf(config: ServoMounts): readonly ServoAxis[] {
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
