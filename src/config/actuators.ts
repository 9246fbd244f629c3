import type { ArmConfig } from "./ArmConfig.js";

/**
 * Every axis the arm can move, joints and gripper alike, in one shape. The
 * gripper is an axis on a 0..1 scale (0 closed, 1 open), so motion commands,
 * poses and observation treat it like any joint.
 */
export interface Actuator {
  readonly name: string;
  readonly kind: "joint" | "gripper";
  readonly min: number;
  readonly max: number;
  readonly maxVelocity: number;
  readonly maxAcceleration: number;
  readonly home: number;
  /** |target - observed| at or below this counts as reached. */
  readonly tolerance: number;
  /** The lock key of this axis. */
  readonly resource: string;
}

export function actuatorsOf(config: ArmConfig): readonly Actuator[] {
  const joints: Actuator[] = config.arm.joints.map((j) => ({
    name: j.name,
    kind: "joint",
    min: j.min,
    max: j.max,
    maxVelocity: j.maxVelocity,
    maxAcceleration: j.maxAcceleration,
    home: j.home,
    tolerance: config.tolerances.position,
    resource: `joint:${j.name}`,
  }));
  const g = config.arm.gripper;
  if (g) {
    joints.push({
      name: g.name,
      kind: "gripper",
      min: 0,
      max: 1,
      maxVelocity: g.maxVelocity,
      maxAcceleration: g.maxAcceleration,
      home: g.home,
      tolerance: config.tolerances.gripper,
      resource: "gripper",
    });
  }
  return joints;
}

/**
 * The lock keys a motion of these axes holds: each axis, plus every
 * controller that drives one of them, because a one-goal-at-a-time controller
 * (ROS JTC) preempts its active goal when a new one arrives.
 */
export function resourcesFor(config: ArmConfig, axes: Iterable<string>): string[] {
  const byName = new Map(actuatorsOf(config).map((a) => [a.name, a]));
  const keys = new Set<string>();
  for (const axis of axes) {
    const a = byName.get(axis);
    keys.add(a ? a.resource : `joint:${axis}`);
    for (const c of config.arm.controllers) if (c.joints.includes(axis)) keys.add(`controller:${c.name}`);
  }
  return [...keys].sort();
}
