import { ArmbridgeError } from "../errors.js";
import type { Transform } from "./rigidTransform.js";
import { unitVector } from "../geometry/unitVector.js";

/** One joint of a chain as the kernel needs it (see KinematicChain). */
export interface KernelJoint {
  /** Column-major 4×4 origin (parent link → joint frame). */
  readonly origin: Transform;
  readonly axis: readonly [number, number, number];
  readonly type: "revolute" | "prismatic" | "continuous" | "fixed";
  /** Index into the joint vector, or -1 for a fixed joint. */
  readonly variable: number;
}

/**
 * Forward kinematics and the analytic Jacobian of a serial chain, on
 * preallocated Float64Arrays: the inner loop of IK runs this hundreds of
 * thousands of times per second, and gl-matrix's per-call temporaries and 4×4
 * multiplies cost more than the arithmetic a chain actually needs.
 *
 * Fixed joints are folded into the next moving joint's origin at build time,
 * so FK is one 3×4 multiply and one axis rotation (Rodrigues) per moving
 * joint, plus the fixed tail to the tip. Rigid transforms are stored 3×4
 * row-major here (R row by row, then t) — internal only.
 *
 * Not re-entrant: one kernel per chain, used synchronously (JS runs one
 * solve at a time), so its buffers are never shared by two solves at once.
 */
export class ChainKernel {
  readonly dof: number;
  /** Per moving joint: the fixed transform before it (3×4 row-major, 12 each). */
  readonly #pre: Float64Array;
  /** After the last moving joint: the fixed tail to the tip. */
  readonly #post: Float64Array;
  readonly #axis: Float64Array;
  readonly #prismatic: Uint8Array;
  /** Outputs of `forward`: per joint the origin (3 each) and base-frame axis (3 each), and the tip (3×4). */
  readonly jointOrigin: Float64Array;
  readonly jointAxis: Float64Array;
  readonly tip = new Float64Array(12);
  /** Per chain joint (KinematicChain.linkNames order): its child link's origin, 3 each, after `linkPositions`. */
  readonly links: Float64Array;
  /** Per moving joint: the frame after its motion (3×4), kept by `forward` for `linkPositions`. */
  readonly #after: Float64Array;
  /** Per chain link: the moving joint it hangs from (-1: the base) and its fixed offset from that frame. */
  readonly #linkRef: Int32Array;
  readonly #linkOffset: Float64Array;
  readonly #acc = new Float64Array(12);
  readonly #tmp = new Float64Array(12);

  constructor(joints: readonly KernelJoint[], dof: number) {
    this.dof = dof;
    this.#pre = new Float64Array(12 * dof);
    this.#axis = new Float64Array(3 * dof);
    this.#prismatic = new Uint8Array(dof);
    this.jointOrigin = new Float64Array(3 * dof);
    this.jointAxis = new Float64Array(3 * dof);
    this.#after = new Float64Array(12 * dof);
    this.links = new Float64Array(3 * joints.length);
    this.#linkRef = new Int32Array(joints.length);
    this.#linkOffset = new Float64Array(3 * joints.length);
    let run = identity34();
    let last = -1;
    for (const [i, j] of joints.entries()) {
      run = compose34(run, from44(j.origin));
      if (j.variable < 0) {
        // A fixed link: a constant offset from the last moving joint's frame (or the base).
        this.#linkRef[i] = last;
        this.#linkOffset.set([run[3] ?? 0, run[7] ?? 0, run[11] ?? 0], 3 * i);
        continue;
      }
      // A moving joint's child link frame is the frame after its motion itself.
      this.#linkRef[i] = j.variable;
      last = j.variable;
      const k = j.variable;
      this.#pre.set(run, 12 * k);
      // parseUrdf already refused axes that cannot be normalised; a chain built some other way is held to the same rule.
      const axis = unitVector(j.axis, 1e-9);
      if (!axis.ok)
        throw new ArmbridgeError("ARMB_ERR_URDF_INVALID", {
          path: "(kinematic chain)",
          reason: `the axis of moving joint #${k + 1} ${axis.message}`,
        });
      this.#axis.set(axis.unit, 3 * k);
      this.#prismatic[k] = j.type === "prismatic" ? 1 : 0;
      run = identity34();
    }
    this.#post = run;
  }

  /** Fills `tip`, `jointOrigin` and `jointAxis` for joint vector `q`. */
  forward(q: ArrayLike<number>): void {
    const acc = this.#acc,
      tmp = this.#tmp,
      pre = this.#pre,
      axis = this.#axis;
    acc.fill(0);
    acc[0] = acc[5] = acc[10] = 1;
    for (let k = 0; k < this.dof; k++) {
      mul34(acc, pre, 12 * k, tmp);
      acc.set(tmp);
      const ax = axis[3 * k] ?? 0,
        ay = axis[3 * k + 1] ?? 0,
        az = axis[3 * k + 2] ?? 1;
      // The joint frame: its origin and its axis in the base frame.
      const wx = (acc[0] ?? 0) * ax + (acc[1] ?? 0) * ay + (acc[2] ?? 0) * az;
      const wy = (acc[4] ?? 0) * ax + (acc[5] ?? 0) * ay + (acc[6] ?? 0) * az;
      const wz = (acc[8] ?? 0) * ax + (acc[9] ?? 0) * ay + (acc[10] ?? 0) * az;
      this.jointOrigin[3 * k] = acc[3] ?? 0;
      this.jointOrigin[3 * k + 1] = acc[7] ?? 0;
      this.jointOrigin[3 * k + 2] = acc[11] ?? 0;
      this.jointAxis[3 * k] = wx;
      this.jointAxis[3 * k + 1] = wy;
      this.jointAxis[3 * k + 2] = wz;
      const v = q[k] ?? 0;
      if (this.#prismatic[k] === 1) {
        acc[3] = (acc[3] ?? 0) + wx * v;
        acc[7] = (acc[7] ?? 0) + wy * v;
        acc[11] = (acc[11] ?? 0) + wz * v;
      } else {
        rotateAbout(acc, ax, ay, az, v, tmp);
      }
      this.#after.set(acc, 12 * k);
    }
    mul34(acc, this.#post, 0, this.tip);
  }

  /**
   * Per moving joint k, the frame after its motion (its child link's frame,
   * base coordinates) for the last `forward`: 3×4 row-major at 12·k. Read
   * only; the envelope places link volumes with it.
   */
  get jointFrames(): Float64Array {
    return this.#after;
  }

  /** Fills `links` with every chain link's origin (base frame) for the last `forward`. */
  linkPositions(): Float64Array {
    const out = this.links,
      after = this.#after,
      off = this.#linkOffset;
    for (let i = 0; i < this.#linkRef.length; i++) {
      const r = this.#linkRef[i] ?? -1;
      const ox = off[3 * i] ?? 0,
        oy = off[3 * i + 1] ?? 0,
        oz = off[3 * i + 2] ?? 0;
      if (r < 0) {
        out[3 * i] = ox;
        out[3 * i + 1] = oy;
        out[3 * i + 2] = oz;
        continue;
      }
      const b = 12 * r;
      out[3 * i] = (after[b] ?? 0) * ox + (after[b + 1] ?? 0) * oy + (after[b + 2] ?? 0) * oz + (after[b + 3] ?? 0);
      out[3 * i + 1] =
        (after[b + 4] ?? 0) * ox + (after[b + 5] ?? 0) * oy + (after[b + 6] ?? 0) * oz + (after[b + 7] ?? 0);
      out[3 * i + 2] =
        (after[b + 8] ?? 0) * ox + (after[b + 9] ?? 0) * oy + (after[b + 10] ?? 0) * oz + (after[b + 11] ?? 0);
    }
    return out;
  }

  /**
   * The geometric Jacobian at the last `forward`: rows 0–2 the tip's linear
   * velocity, rows 3–5 (when `rows` is 6) its angular velocity times
   * `rotationWeight`. Row-major rows×dof into `J`.
   */
  jacobian(J: Float64Array, rows: 3 | 6, rotationWeight: number): void {
    const n = this.dof,
      o = this.jointOrigin,
      w = this.jointAxis;
    const tx = this.tip[3] ?? 0,
      ty = this.tip[7] ?? 0,
      tz = this.tip[11] ?? 0;
    for (let k = 0; k < n; k++) {
      const wx = w[3 * k] ?? 0,
        wy = w[3 * k + 1] ?? 0,
        wz = w[3 * k + 2] ?? 0;
      if (this.#prismatic[k] === 1) {
        J[k] = wx;
        J[n + k] = wy;
        J[2 * n + k] = wz;
        if (rows === 6) J[3 * n + k] = J[4 * n + k] = J[5 * n + k] = 0;
        continue;
      }
      const rx = tx - (o[3 * k] ?? 0),
        ry = ty - (o[3 * k + 1] ?? 0),
        rz = tz - (o[3 * k + 2] ?? 0);
      J[k] = wy * rz - wz * ry;
      J[n + k] = wz * rx - wx * rz;
      J[2 * n + k] = wx * ry - wy * rx;
      if (rows === 6) {
        J[3 * n + k] = rotationWeight * wx;
        J[4 * n + k] = rotationWeight * wy;
        J[5 * n + k] = rotationWeight * wz;
      }
    }
  }
}

function identity34(): Float64Array {
  return Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0);
}

/** Column-major 4×4 → row-major 3×4. */
function from44(m: Transform): Float64Array {
  const out = new Float64Array(12);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[4 * r + c] = m[4 * c + r] ?? 0;
  return out;
}

function compose34(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(12);
  mul34(a, b, 0, out);
  return out;
}

/** out = a · b[offset…], all 3×4 row-major rigid transforms. */
function mul34(a: Float64Array, b: Float64Array, o: number, out: Float64Array): void {
  for (let r = 0; r < 3; r++) {
    const a0 = a[4 * r] ?? 0,
      a1 = a[4 * r + 1] ?? 0,
      a2 = a[4 * r + 2] ?? 0,
      a3 = a[4 * r + 3] ?? 0;
    out[4 * r] = a0 * (b[o] ?? 0) + a1 * (b[o + 4] ?? 0) + a2 * (b[o + 8] ?? 0);
    out[4 * r + 1] = a0 * (b[o + 1] ?? 0) + a1 * (b[o + 5] ?? 0) + a2 * (b[o + 9] ?? 0);
    out[4 * r + 2] = a0 * (b[o + 2] ?? 0) + a1 * (b[o + 6] ?? 0) + a2 * (b[o + 10] ?? 0);
    out[4 * r + 3] = a0 * (b[o + 3] ?? 0) + a1 * (b[o + 7] ?? 0) + a2 * (b[o + 11] ?? 0) + a3;
  }
}

/** acc.R ← acc.R · Rot(axis, angle) (Rodrigues); the translation is unchanged. */
function rotateAbout(acc: Float64Array, x: number, y: number, z: number, angle: number, tmp: Float64Array): void {
  const c = Math.cos(angle),
    s = Math.sin(angle),
    t = 1 - c;
  const r00 = t * x * x + c,
    r01 = t * x * y - s * z,
    r02 = t * x * z + s * y;
  const r10 = t * x * y + s * z,
    r11 = t * y * y + c,
    r12 = t * y * z - s * x;
  const r20 = t * x * z - s * y,
    r21 = t * y * z + s * x,
    r22 = t * z * z + c;
  for (let r = 0; r < 3; r++) {
    const a0 = acc[4 * r] ?? 0,
      a1 = acc[4 * r + 1] ?? 0,
      a2 = acc[4 * r + 2] ?? 0;
    tmp[r] = a0 * r00 + a1 * r10 + a2 * r20;
    tmp[3 + r] = a0 * r01 + a1 * r11 + a2 * r21;
    tmp[6 + r] = a0 * r02 + a1 * r12 + a2 * r22;
  }
  for (let r = 0; r < 3; r++) {
    acc[4 * r] = tmp[r] ?? 0;
    acc[4 * r + 1] = tmp[3 + r] ?? 0;
    acc[4 * r + 2] = tmp[6 + r] ?? 0;
  }
}
