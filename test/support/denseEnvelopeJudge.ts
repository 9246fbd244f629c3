import { readFileSync } from "node:fs";
import { mat4 } from "gl-matrix";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { invert, type Transform } from "../../src/kinematics/rigidTransform.js";
import type { VolumeShape } from "../../src/kinematics/volumes/VolumeShape.js";

type V3 = [number, number, number];

/**
 * An independent judge of the envelope, for property tests: it places each
 * link volume by the chain's gl-matrix FK (not the IK kernel the check uses),
 * and decides intersections with its own geometry — closest points of two
 * segments by enumerating the interior solution and the four edges, a
 * segment against a box by dense points (exact point–box distances), two
 * boxes by clipping each one's edges against the other (Liang–Barsky) and
 * containment of centres — never the check's own functions. It looks only at
 * configurations (a fine sampling of the path), so it can miss a contact
 * between its samples, never invent one.
 *
 * What it reports is a contact the envelope promised to avoid: a volume
 * through the floor, out of keep_in, into a keep-out zone, or into another
 * link's volume (pairs the check would check: not adjacent, not allowed).
 */
export class DenseEnvelopeJudge {
  readonly #config: ArmConfig;
  readonly #refLink: readonly number[];
  readonly #toFrame: Transform;

  constructor(config: ArmConfig) {
    this.#config = config;
    const kin = armKinematicsOf(config)!;
    // Which chain link index is each variable's child frame: from the URDF itself.
    const model = parseUrdf(readFileSync(config.arm.urdf!, "utf8"), "judge");
    this.#refLink = kin.chain.variables.map((v) => kin.chain.linkNames.indexOf(model.joints.find((j) => j.name === v.name)!.child));
    const frame = config.workspace?.frame;
    this.#toFrame = frame === undefined ? mat4.create() as unknown as Transform : invert(kin.chain.fixedFrames.get(frame)!);
  }

  /** The first contact at configuration q (chain order), or undefined. */
  contactAt(q: readonly number[]): string | undefined {
    const kin = armKinematicsOf(this.#config)!;
    const frames = kin.chain.frames(q).links;
    const shapes = kin.bodies.volumes.map((v) => {
      const ref = v.ref < 0 ? (mat4.create() as unknown as Float64Array) : frames[this.#refLink[v.ref]!]!;
      const t = mat4.multiply(new Float64Array(16), this.#toFrame, ref) as Float64Array;
      return place(t, v.shape);
    });
    const ws = this.#config.workspace;
    for (const [i, v] of kin.bodies.volumes.entries()) {
      if (v.ref < 0) continue;
      const s = shapes[i]!;
      const [lo, hi] = extent(s);
      if (ws?.floorZ !== undefined && lo[2] < ws.floorZ) return `${v.link} below the floor (z ${lo[2].toFixed(4)})`;
      if (ws?.keepIn) for (let a = 0; a < 3; a++) if (lo[a]! < ws.keepIn.min[a]! || hi[a]! > ws.keepIn.max[a]!) return `${v.link} outside keep_in`;
      for (const zone of ws?.keepOut ?? []) {
        if (zone.kind === "box") {
          const box: Placed = { kind: "box", center: zone.min.map((m, k) => (m + zone.max[k]!) / 2) as V3, axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], half: zone.min.map((m, k) => (zone.max[k]! - m) / 2) as V3 };
          if (intersects(s, box)) return `${v.link} in keep_out ${zone.name}`;
        } else if (cylinderHit(s, zone.center, zone.radius, zone.zMin, zone.zMax)) {
          return `${v.link} in keep_out ${zone.name}`;
        }
      }
    }
    for (const [i, j] of kin.bodies.pairs) {
      if (intersects(shapes[i]!, shapes[j]!)) return `${kin.bodies.volumes[i]!.link} into ${kin.bodies.volumes[j]!.link}`;
    }
    return undefined;
  }

  /** The first contact along q0 → q1 sampled at n + 1 configurations. */
  contactAlong(q0: readonly number[], q1: readonly number[], n: number): string | undefined {
    for (let s = 0; s <= n; s++) {
      const c = this.contactAt(q0.map((v, k) => v + (s / n) * (q1[k]! - v)));
      if (c) return `${c} at ${(s / n).toFixed(3)}`;
    }
    return undefined;
  }
}

type Placed =
  | { kind: "capsule"; a: V3; b: V3; radius: number }
  | { kind: "box"; center: V3; axes: [V3, V3, V3]; half: V3 };

function apply(t: Float64Array, p: readonly number[], w: number): V3 {
  return [0, 1, 2].map((r) => t[r]! * p[0]! + t[4 + r]! * p[1]! + t[8 + r]! * p[2]! + w * t[12 + r]!) as V3;
}

function place(t: Float64Array, s: VolumeShape): Placed {
  return s.kind === "capsule"
    ? { kind: "capsule", a: apply(t, s.a, 1), b: apply(t, s.b, 1), radius: s.radius }
    : { kind: "box", center: apply(t, s.center, 1), axes: [apply(t, s.axes[0], 0), apply(t, s.axes[1], 0), apply(t, s.axes[2], 0)], half: [...s.half] };
}

function corners(b: Extract<Placed, { kind: "box" }>): V3[] {
  const out: V3[] = [];
  for (const i of [-1, 1]) for (const j of [-1, 1]) for (const k of [-1, 1]) out.push([0, 1, 2].map((a) => b.center[a]! + i * b.half[0] * b.axes[0][a]! + j * b.half[1] * b.axes[1][a]! + k * b.half[2] * b.axes[2][a]!) as V3);
  return out;
}

function extent(s: Placed): [V3, V3] {
  const pts = s.kind === "capsule" ? [s.a, s.b] : corners(s);
  const r = s.kind === "capsule" ? s.radius : 0;
  return [[0, 1, 2].map((a) => Math.min(...pts.map((p) => p[a]!)) - r) as V3, [0, 1, 2].map((a) => Math.max(...pts.map((p) => p[a]!)) + r) as V3];
}

const sub = (p: V3, q: V3): V3 => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
const dot = (p: V3, q: V3): number => p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
const at = (p: V3, q: V3, t: number): V3 => [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]), p[2] + t * (q[2] - p[2])];

function pointSegment(p: V3, a: V3, b: V3): number {
  const d = sub(b, a);
  const l2 = dot(d, d);
  const t = l2 > 0 ? Math.max(0, Math.min(1, dot(sub(p, a), d) / l2)) : 0;
  return Math.hypot(...sub(p, at(a, b, t)));
}

/** Closest distance of two segments: the interior stationary point if it lies inside, else the best of the four edge cases. */
function segmentSegment(a: V3, b: V3, c: V3, d: V3): number {
  const u = sub(b, a), v = sub(d, c), w = sub(a, c);
  const A = dot(u, u), B = dot(u, v), C = dot(v, v), D = dot(u, w), E = dot(v, w);
  const det = A * C - B * B;
  let best = Math.min(pointSegment(a, c, d), pointSegment(b, c, d), pointSegment(c, a, b), pointSegment(d, a, b));
  if (det > 1e-15) {
    const s = (B * E - C * D) / det, t = (A * E - B * D) / det;
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1) best = Math.min(best, Math.hypot(...sub(at(a, b, s), at(c, d, t))));
  }
  return best;
}

function pointBox(p: V3, b: Extract<Placed, { kind: "box" }>): number {
  const d = sub(p, b.center);
  let s = 0;
  for (let i = 0; i < 3; i++) {
    const e = Math.max(0, Math.abs(dot(d, b.axes[i]!)) - b.half[i]!);
    s += e * e;
  }
  return Math.sqrt(s);
}

/** Whether segment p → q meets the solid box (Liang–Barsky clipping against its three slabs). */
function segmentHitsBox(p: V3, q: V3, b: Extract<Placed, { kind: "box" }>): boolean {
  let t0 = 0, t1 = 1;
  for (let i = 0; i < 3; i++) {
    const o = dot(sub(p, b.center), b.axes[i]!), dir = dot(sub(q, p), b.axes[i]!);
    if (Math.abs(dir) < 1e-15) {
      if (Math.abs(o) > b.half[i]!) return false;
      continue;
    }
    let ta = (-b.half[i]! - o) / dir, tb = (b.half[i]! - o) / dir;
    if (ta > tb) [ta, tb] = [tb, ta];
    t0 = Math.max(t0, ta);
    t1 = Math.min(t1, tb);
    if (t0 > t1) return false;
  }
  return true;
}

const EDGES: readonly (readonly [number, number])[] = [[0, 1], [0, 2], [0, 4], [1, 3], [1, 5], [2, 3], [2, 6], [3, 7], [4, 5], [4, 6], [5, 7], [6, 7]];

/** A sphere round the volume: two volumes whose spheres are apart cannot meet (a quick rejection, never a false one). */
function sphere(s: Placed): [V3, number] {
  if (s.kind === "capsule") return [at(s.a, s.b, 0.5), Math.hypot(...sub(s.b, s.a)) / 2 + s.radius];
  return [s.center, Math.hypot(...s.half)];
}

function intersects(s: Placed, t: Placed): boolean {
  const [cs, rs] = sphere(s), [ct, rt] = sphere(t);
  if (Math.hypot(...sub(cs, ct)) > rs + rt) return false;
  if (s.kind === "capsule" && t.kind === "capsule") return segmentSegment(s.a, s.b, t.a, t.b) < s.radius + t.radius;
  if (s.kind === "box" && t.kind === "box") {
    const cs = corners(s), ct = corners(t);
    if (pointBox(s.center, t) === 0 || pointBox(t.center, s) === 0) return true;
    return EDGES.some(([i, j]) => segmentHitsBox(cs[i]!, cs[j]!, t)) || EDGES.some(([i, j]) => segmentHitsBox(ct[i]!, ct[j]!, s));
  }
  const [cap, box] = s.kind === "capsule" ? [s, t as Extract<Placed, { kind: "box" }>] : [t as Extract<Placed, { kind: "capsule" }>, s];
  if (segmentHitsBox(cap.a, cap.b, box)) return true;
  // Dense points along the segment: exact point–box distances (can miss by at most half their spacing).
  const n = Math.max(2, Math.ceil(Math.hypot(...sub(cap.b, cap.a)) / 0.0005));
  for (let i = 0; i <= n; i++) if (pointBox(at(cap.a, cap.b, i / n), box) < cap.radius) return true;
  return false;
}

function cylinderHit(s: Placed, c: readonly number[], r: number, zMin: number, zMax: number): boolean {
  const [centre, reach] = sphere(s);
  if (Math.hypot(centre[0] - c[0]!, centre[1] - c[1]!) > r + reach || centre[2] + reach < zMin || centre[2] - reach > zMax) return false;
  const inside = (p: V3, grow: number): boolean => Math.max(0, Math.hypot(p[0] - c[0]!, p[1] - c[1]!) - r) ** 2 + Math.max(0, zMin - p[2], p[2] - zMax) ** 2 < grow * grow || (Math.hypot(p[0] - c[0]!, p[1] - c[1]!) <= r && p[2] >= zMin && p[2] <= zMax);
  if (s.kind === "capsule") {
    const n = Math.max(2, Math.ceil(Math.hypot(...sub(s.b, s.a)) / 0.0005));
    for (let i = 0; i <= n; i++) if (inside(at(s.a, s.b, i / n), s.radius)) return true;
    return false;
  }
  // A box: a grid over its surface and through it.
  const m = 12;
  for (let i = 0; i <= m; i++) for (let j = 0; j <= m; j++) for (let k = 0; k <= m; k++) {
    const u = (2 * i) / m - 1, v = (2 * j) / m - 1, w = (2 * k) / m - 1;
    const p = [0, 1, 2].map((a) => s.center[a]! + u * s.half[0] * s.axes[0][a]! + v * s.half[1] * s.axes[1][a]! + w * s.half[2] * s.axes[2][a]!) as V3;
    if (inside(p, 0)) return true;
  }
  return false;
}
