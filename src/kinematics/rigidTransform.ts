import { mat4, quat } from "gl-matrix";
import { unitVector } from "../geometry/unitVector.js";

/**
 * Rigid transforms as gl-matrix 4×4 column-major matrices, always in
 * Float64Array: gl-matrix's own `create()` allocates Float32Array, whose
 * 7 significant digits are ~0.1 mm at a metre — too coarse for a 1 mm IK check.
 */
export type Transform = Float64Array;

export function identity(): Transform {
  return mat4.identity(new Float64Array(16)) as Transform;
}

/** URDF `<origin xyz rpy>`: translate, then rotate by R = Rz(yaw)·Ry(pitch)·Rx(roll) (fixed axes x, y, z). */
export function fromXyzRpy(xyz: readonly [number, number, number], rpy: readonly [number, number, number]): Transform {
  const out = identity();
  mat4.translate(out, out, xyz);
  mat4.rotateZ(out, out, rpy[2]);
  mat4.rotateY(out, out, rpy[1]);
  mat4.rotateX(out, out, rpy[0]);
  return out;
}

/** The translation column of a transform. */
export function positionOf(t: Transform): [number, number, number] {
  return [t[12] ?? 0, t[13] ?? 0, t[14] ?? 0];
}

export interface Rpy {
  readonly roll: number;
  readonly pitch: number;
  readonly yaw: number;
}

export interface Quaternion {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly w: number;
}

/** Roll, pitch, yaw (URDF / ROS convention, R = Rz·Ry·Rx) of a transform's rotation. */
export function rpyOf(t: Transform): Rpy {
  // Column-major: r_ij = t[j*4 + i].
  const r00 = t[0] ?? 1,
    r10 = t[1] ?? 0,
    r20 = t[2] ?? 0,
    r21 = t[6] ?? 0,
    r22 = t[10] ?? 1;
  const pitch = Math.atan2(-r20, Math.hypot(r00, r10));
  // Near pitch = ±90° roll and yaw share one axis; put it all in yaw.
  if (Math.abs(Math.cos(pitch)) < 1e-9) {
    const r01 = t[4] ?? 0,
      r11 = t[5] ?? 1;
    return { roll: 0, pitch, yaw: Math.atan2(-r01, r11) };
  }
  return { roll: Math.atan2(r21, r22), pitch, yaw: Math.atan2(r10, r00) };
}

export function quaternionOf(t: Transform): Quaternion {
  const q = mat4.getRotation(new Float64Array(4), t);
  // One of the two equal quaternions, by a fixed rule (w ≥ 0), so reports are stable.
  const s = (q[3] ?? 1) < 0 ? -1 : 1;
  return { x: s * (q[0] ?? 0), y: s * (q[1] ?? 0), z: s * (q[2] ?? 0), w: s * (q[3] ?? 1) };
}

/** A transform from a position and roll/pitch/yaw. */
export function fromPositionRpy(position: readonly [number, number, number], rpy: Rpy): Transform {
  return fromXyzRpy(position, [rpy.roll, rpy.pitch, rpy.yaw]);
}

/**
 * A transform from a position and a (not necessarily unit) quaternion;
 * undefined for a quaternion that cannot be normalised (zero, not finite, or
 * so long its length overflows).
 */
export function fromPositionQuaternion(
  position: readonly [number, number, number],
  q: Quaternion,
): Transform | undefined {
  const n = unitVector([q.x, q.y, q.z, q.w], 1e-9);
  if (!n.ok) return undefined;
  const [x = 0, y = 0, z = 0, w = 1] = n.unit;
  return mat4.fromRotationTranslation(new Float64Array(16), quat.fromValues(x, y, z, w), position) as Transform;
}

export function multiply(a: Transform, b: Transform): Transform {
  return mat4.multiply(new Float64Array(16), a, b) as Transform;
}

export function invert(t: Transform): Transform {
  return (mat4.invert(new Float64Array(16), t) ?? identity()) as Transform;
}

/** Applies a transform to a point. */
export function transformPoint(t: Transform, p: readonly [number, number, number]): [number, number, number] {
  const [x, y, z] = p;
  return [
    (t[0] ?? 0) * x + (t[4] ?? 0) * y + (t[8] ?? 0) * z + (t[12] ?? 0),
    (t[1] ?? 0) * x + (t[5] ?? 0) * y + (t[9] ?? 0) * z + (t[13] ?? 0),
    (t[2] ?? 0) * x + (t[6] ?? 0) * y + (t[10] ?? 0) * z + (t[14] ?? 0),
  ];
}
