import { readFileSync } from "node:fs";
import { mat4 } from "gl-matrix";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { KeepOutZone } from "../../src/config/envelopeConfig.js";
import { armKinematicsOf, type ArmKinematics } from "../../src/kinematics/armKinematics.js";
import type { ChainFrames } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { invert } from "../../src/kinematics/rigidTransform.js";
import type { VolumeShape } from "../../src/kinematics/volumes/VolumeShape.js";

type V3 = [number, number, number];

/**
 * An independent judge of the envelope, for property tests: it places each
 * link volume by the chain's gl-matrix FK (not the IK kernel the check uses),
 * and decides intersections with its own geometry, never the check's own
 * functions:
 * - two capsules: closest points of two segments by enumerating the interior
 *   solution and the four edge cases;
 * - a capsule against a box or a vertical cylinder: the distance from a point
 *   of the segment to a convex solid is a convex function along it, so a
 *   ternary search finds its minimum (to well under a nanometre), using only
 *   point–box and point–cylinder distances;
 * - two boxes: each one's edges clipped against the other (Liang–Barsky),
 *   and containment of centres;
 * - a box against a cylinder: a 13³ grid through the box (this one can miss
 *   a shallow contact between its points; it never invents one);
 * - the floor and keep_in: each volume's exact axis-aligned extent.
 * It looks only at configurations (a fine sampling of the path), so it can
 * miss a contact between its samples, never invent one.
 *
 * What it reports is a contact the envelope promised to avoid: a volume
 * through the floor, out of keep_in, into a keep-out zone, or into another
 * link's volume (pairs the check would check: not adjacent, not allowed).
 *
 * It is written to allocate little per configuration: property tests call it
 * hundreds of thousands of times.
 */
export class DenseEnvelopeJudge {
  readonly #config: ArmConfig;
  readonly #kin: ArmKinematics;
  readonly #refLink: readonly number[];
  readonly #toFrame: mat4;
  readonly #zones: readonly { readonly zone: KeepOutZone; readonly placed?: Box }[];
  readonly #placed: Placed[];
  readonly #world = new Float64Array(16);
  readonly #identity = mat4.create();
  #frames: ChainFrames | undefined;

  constructor(config: ArmConfig) {
    this.#config = config;
    this.#kin = armKinematicsOf(config)!;
    const kin = this.#kin;
    // Which chain link index is each variable's child frame: from the URDF itself.
    const model = parseUrdf(readFileSync(config.arm.urdf!, "utf8"), "judge");
    this.#refLink = kin.chain.variables.map((v) =>
      kin.chain.linkNames.indexOf(model.joints.find((j) => j.name === v.name)!.child),
    );
    const frame = config.workspace?.frame;
    this.#toFrame = frame === undefined ? mat4.create() : invert(kin.chain.fixedFrames.get(frame)!);
    this.#zones = (config.workspace?.keepOut ?? []).map((zone) => {
      if (zone.kind !== "box") return { zone };
      const box = emptyBox();
      for (let a = 0; a < 3; a++) {
        box.center[a] = (zone.min[a]! + zone.max[a]!) / 2;
        box.half[a] = (zone.max[a]! - zone.min[a]!) / 2;
        box.axes[a]![a] = 1;
      }
      finish(box);
      return { zone, placed: box };
    });
    this.#placed = kin.bodies.volumes.map((v) => (v.shape.kind === "capsule" ? emptyCapsule() : emptyBox()));
  }

  /** The first contact at configuration q (chain order), or undefined. */
  contactAt(q: readonly number[]): string | undefined {
    const kin = this.#kin;
    this.#frames = kin.chain.frames(q, this.#frames);
    const frames = this.#frames.links;
    const volumes = kin.bodies.volumes;
    for (let i = 0; i < volumes.length; i++) {
      const v = volumes[i]!;
      const ref = v.ref < 0 ? this.#identity : (frames[this.#refLink[v.ref]!]! as unknown as mat4);
      mat4.multiply(this.#world, this.#toFrame, ref);
      place(this.#world, v.shape, this.#placed[i]!);
    }
    const ws = this.#config.workspace;
    for (let i = 0; i < volumes.length; i++) {
      const v = volumes[i]!;
      if (v.ref < 0) continue;
      const s = this.#placed[i]!;
      if (ws?.floorZ !== undefined && s.lo[2] < ws.floorZ) return `${v.link} below the floor (z ${s.lo[2].toFixed(4)})`;
      if (ws?.keepIn)
        for (let a = 0; a < 3; a++)
          if (s.lo[a]! < ws.keepIn.min[a]! || s.hi[a]! > ws.keepIn.max[a]!) return `${v.link} outside keep_in`;
      for (const { zone, placed } of this.#zones) {
        const hit =
          zone.kind === "box" ? intersects(s, placed!) : cylinderHit(s, zone.center, zone.radius, zone.zMin, zone.zMax);
        if (hit) return `${v.link} in keep_out ${zone.name}`;
      }
    }
    for (const [i, j] of kin.bodies.pairs) {
      if (intersects(this.#placed[i]!, this.#placed[j]!)) return `${volumes[i]!.link} into ${volumes[j]!.link}`;
    }
    return undefined;
  }

  /** The first contact along q0 → q1 sampled at n + 1 configurations. */
  contactAlong(q0: readonly number[], q1: readonly number[], n: number): string | undefined {
    const q = q0.slice();
    for (let s = 0; s <= n; s++) {
      for (let k = 0; k < q.length; k++) q[k] = q0[k]! + (s / n) * (q1[k]! - q0[k]!);
      const c = this.contactAt(q);
      if (c) return `${c} at ${(s / n).toFixed(3)}`;
    }
    return undefined;
  }
}

/** A placed volume, with its axis-aligned extent and a sphere round it (for quick rejections, never false ones). */
interface Common {
  readonly lo: V3;
  readonly hi: V3;
  readonly mid: V3;
  reach: number;
}
interface Capsule extends Common {
  readonly kind: "capsule";
  readonly a: V3;
  readonly b: V3;
  radius: number;
}
interface Box extends Common {
  readonly kind: "box";
  readonly center: V3;
  readonly axes: [V3, V3, V3];
  readonly half: V3;
}
type Placed = Capsule | Box;

const v3 = (): V3 => [0, 0, 0];
const emptyCapsule = (): Capsule => ({
  kind: "capsule",
  a: v3(),
  b: v3(),
  radius: 0,
  lo: v3(),
  hi: v3(),
  mid: v3(),
  reach: 0,
});
const emptyBox = (): Box => ({
  kind: "box",
  center: v3(),
  axes: [v3(), v3(), v3()],
  half: v3(),
  lo: v3(),
  hi: v3(),
  mid: v3(),
  reach: 0,
});

function apply(t: Float64Array, p: readonly number[], w: number, out: V3): void {
  for (let r = 0; r < 3; r++) out[r] = t[r]! * p[0]! + t[4 + r]! * p[1]! + t[8 + r]! * p[2]! + w * t[12 + r]!;
}

function place(t: Float64Array, s: VolumeShape, out: Placed): void {
  if (s.kind === "capsule" && out.kind === "capsule") {
    apply(t, s.a, 1, out.a);
    apply(t, s.b, 1, out.b);
    out.radius = s.radius;
  } else if (s.kind === "box" && out.kind === "box") {
    apply(t, s.center, 1, out.center);
    for (let i = 0; i < 3; i++) apply(t, s.axes[i]!, 0, out.axes[i]!);
    for (let i = 0; i < 3; i++) out.half[i] = s.half[i]!;
  }
  finish(out);
}

/** Extent and bounding sphere of a placed volume. */
function finish(s: Placed): void {
  if (s.kind === "capsule") {
    for (let a = 0; a < 3; a++) {
      s.lo[a] = Math.min(s.a[a]!, s.b[a]!) - s.radius;
      s.hi[a] = Math.max(s.a[a]!, s.b[a]!) + s.radius;
      s.mid[a] = (s.a[a]! + s.b[a]!) / 2;
    }
    s.reach = Math.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1], s.b[2] - s.a[2]) / 2 + s.radius;
    return;
  }
  for (let a = 0; a < 3; a++) {
    // A box's extent along a world axis: the centre ± the sum of its half extents projected on it.
    const e =
      s.half[0] * Math.abs(s.axes[0][a]!) + s.half[1] * Math.abs(s.axes[1][a]!) + s.half[2] * Math.abs(s.axes[2][a]!);
    s.lo[a] = s.center[a]! - e;
    s.hi[a] = s.center[a]! + e;
    s.mid[a] = s.center[a]!;
  }
  s.reach = Math.hypot(s.half[0], s.half[1], s.half[2]);
}

const sub = (p: V3, q: V3): V3 => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
const dot = (p: readonly number[], q: readonly number[]): number => p[0]! * q[0]! + p[1]! * q[1]! + p[2]! * q[2]!;
const at = (p: V3, q: V3, t: number): V3 => [
  p[0] + t * (q[0] - p[0]),
  p[1] + t * (q[1] - p[1]),
  p[2] + t * (q[2] - p[2]),
];

function pointSegment(p: V3, a: V3, b: V3): number {
  const d = sub(b, a);
  const l2 = dot(d, d);
  const t = l2 > 0 ? Math.max(0, Math.min(1, dot(sub(p, a), d) / l2)) : 0;
  return Math.hypot(...sub(p, at(a, b, t)));
}

/** Closest distance of two segments: the interior stationary point if it lies inside, else the best of the four edge cases. */
function segmentSegment(a: V3, b: V3, c: V3, d: V3): number {
  const u = sub(b, a),
    v = sub(d, c),
    w = sub(a, c);
  const A = dot(u, u),
    B = dot(u, v),
    C = dot(v, v),
    D = dot(u, w),
    E = dot(v, w);
  const det = A * C - B * B;
  let best = Math.min(pointSegment(a, c, d), pointSegment(b, c, d), pointSegment(c, a, b), pointSegment(d, a, b));
  if (det > 1e-15) {
    const s = (B * E - C * D) / det,
      t = (A * E - B * D) / det;
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1) best = Math.min(best, Math.hypot(...sub(at(a, b, s), at(c, d, t))));
  }
  return best;
}

function pointBox(x: number, y: number, z: number, b: Box): number {
  const dx = x - b.center[0],
    dy = y - b.center[1],
    dz = z - b.center[2];
  let s = 0;
  for (let i = 0; i < 3; i++) {
    const ax = b.axes[i]!;
    const e = Math.max(0, Math.abs(dx * ax[0] + dy * ax[1] + dz * ax[2]) - b.half[i]!);
    s += e * e;
  }
  return Math.sqrt(s);
}

/** Distance from a point to the solid vertical cylinder (0 inside). */
function pointCylinder(
  x: number,
  y: number,
  z: number,
  c: readonly number[],
  r: number,
  zMin: number,
  zMax: number,
): number {
  const radial = Math.max(0, Math.hypot(x - c[0]!, y - c[1]!) - r);
  const vertical = Math.max(0, zMin - z, z - zMax);
  return Math.hypot(radial, vertical);
}

/**
 * The smallest distance from segment a → b to a convex solid, given the
 * point distance to it: that distance is convex along the segment, so a
 * ternary search converges on its minimum ((2/3)^80 of the length: far under
 * a nanometre).
 */
function segmentMin(a: V3, b: V3, dist: (x: number, y: number, z: number) => number): number {
  const f = (t: number): number => dist(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]));
  let lo = 0,
    hi = 1;
  for (let k = 0; k < 80; k++) {
    const m1 = lo + (hi - lo) / 3,
      m2 = hi - (hi - lo) / 3;
    if (f(m1) <= f(m2)) hi = m2;
    else lo = m1;
  }
  return Math.min(f(0), f(1), f((lo + hi) / 2));
}

/** Whether segment p → q meets the solid box (Liang–Barsky clipping against its three slabs). */
function segmentHitsBox(p: V3, q: V3, b: Box): boolean {
  let t0 = 0,
    t1 = 1;
  for (let i = 0; i < 3; i++) {
    const o = dot(sub(p, b.center), b.axes[i]!),
      dir = dot(sub(q, p), b.axes[i]!);
    if (Math.abs(dir) < 1e-15) {
      if (Math.abs(o) > b.half[i]!) return false;
      continue;
    }
    let ta = (-b.half[i]! - o) / dir,
      tb = (b.half[i]! - o) / dir;
    if (ta > tb) [ta, tb] = [tb, ta];
    t0 = Math.max(t0, ta);
    t1 = Math.min(t1, tb);
    if (t0 > t1) return false;
  }
  return true;
}

function corners(b: Box): V3[] {
  const out: V3[] = [];
  for (const i of [-1, 1]) {
    for (const j of [-1, 1]) {
      for (const k of [-1, 1]) {
        const c = v3();
        for (let a = 0; a < 3; a++)
          c[a] =
            b.center[a]! +
            i * b.half[0] * b.axes[0][a]! +
            j * b.half[1] * b.axes[1][a]! +
            k * b.half[2] * b.axes[2][a]!;
        out.push(c);
      }
    }
  }
  return out;
}

const EDGES: readonly (readonly [number, number])[] = [
  [0, 1],
  [0, 2],
  [0, 4],
  [1, 3],
  [1, 5],
  [2, 3],
  [2, 6],
  [3, 7],
  [4, 5],
  [4, 6],
  [5, 7],
  [6, 7],
];

function intersects(s: Placed, t: Placed): boolean {
  // Apart along a world axis (exact extents), or their spheres apart: they cannot meet.
  for (let a = 0; a < 3; a++) if (s.hi[a]! < t.lo[a]! || t.hi[a]! < s.lo[a]!) return false;
  if (Math.hypot(s.mid[0] - t.mid[0], s.mid[1] - t.mid[1], s.mid[2] - t.mid[2]) > s.reach + t.reach) return false;
  if (s.kind === "capsule" && t.kind === "capsule") return segmentSegment(s.a, s.b, t.a, t.b) < s.radius + t.radius;
  if (s.kind === "box" && t.kind === "box") {
    if (
      pointBox(s.center[0], s.center[1], s.center[2], t) === 0 ||
      pointBox(t.center[0], t.center[1], t.center[2], s) === 0
    )
      return true;
    const cs = corners(s),
      ct = corners(t);
    return (
      EDGES.some(([i, j]) => segmentHitsBox(cs[i]!, cs[j]!, t)) ||
      EDGES.some(([i, j]) => segmentHitsBox(ct[i]!, ct[j]!, s))
    );
  }
  const [cap, box] = s.kind === "capsule" ? [s, t as Box] : [t as Capsule, s];
  if (segmentHitsBox(cap.a, cap.b, box)) return true;
  return segmentMin(cap.a, cap.b, (x, y, z) => pointBox(x, y, z, box)) < cap.radius;
}

function cylinderHit(s: Placed, c: readonly number[], r: number, zMin: number, zMax: number): boolean {
  if (
    Math.hypot(s.mid[0] - c[0]!, s.mid[1] - c[1]!) > r + s.reach ||
    s.mid[2] + s.reach < zMin ||
    s.mid[2] - s.reach > zMax
  )
    return false;
  if (s.kind === "capsule")
    return segmentMin(s.a, s.b, (x, y, z) => pointCylinder(x, y, z, c, r, zMin, zMax)) < s.radius;
  // A box: a grid over its surface and through it.
  const m = 12;
  for (let i = 0; i <= m; i++)
    for (let j = 0; j <= m; j++)
      for (let k = 0; k <= m; k++) {
        const u = (2 * i) / m - 1,
          v = (2 * j) / m - 1,
          w = (2 * k) / m - 1;
        const p = [0, 1, 2].map(
          (a) =>
            s.center[a]! +
            u * s.half[0] * s.axes[0][a]! +
            v * s.half[1] * s.axes[1][a]! +
            w * s.half[2] * s.axes[2][a]!,
        );
        if (pointCylinder(p[0]!, p[1]!, p[2]!, c, r, zMin, zMax) === 0) return true;
      }
  return false;
}
