import type { ArmKinematics } from "../kinematics/armKinematics.js";
import { corePoints, transformShape, type VolumeShape } from "../kinematics/volumes/VolumeShape.js";
import type { Transform } from "../kinematics/rigidTransform.js";

/** Item kinds in the flat buffers: a capsule (segment + radius; a link frame is one of radius 0) or an oriented box. */
export const CAPSULE = 0;
export const BOX = 1;
/** Numbers per item in the buffers: a capsule uses a (3), b (3), radius; a box the OrientedBox layout. */
export const STRIDE = 15;

/** Something the envelope places at every sample: a link volume, or a link frame as a point. */
export interface EnvelopeItem {
  readonly link: string;
  /** "volume" (a collision volume of the link) or "frame" (the link frame's origin). */
  readonly what: "volume" | "frame";
  /** The chain variable whose frame carries it; -1 for the base. */
  readonly ref: number;
  readonly kind: typeof CAPSULE | typeof BOX;
  /**
   * Largest distance of its core points (capsule ends, box corners) from the
   * origin of its ref frame: with the chain's joint offsets, what bounds how
   * far a joint's rotation can move it.
   */
  readonly reach: number;
  /** Index of its BodyVolume in ArmBodies.volumes, or -1 for a frame point. */
  readonly volume: number;
}

/**
 * The items of an arm in flat buffers: `local` holds each item in its ref
 * frame; `place` writes them in the workspace frame for the FK the chain
 * kernel last computed. Static items (on the base) are placed once here.
 */
export class EnvelopeItems {
  readonly items: readonly EnvelopeItem[];
  readonly local: Float64Array;
  readonly world: Float64Array;
  readonly #toFrame: Transform;
  readonly #identityFrame: boolean;
  readonly #frame = new Float64Array(12);

  constructor(kin: ArmKinematics, toFrame: Transform) {
    const items: EnvelopeItem[] = [];
    const shapes: VolumeShape[] = [];
    for (const [i, v] of kin.bodies.volumes.entries()) {
      items.push({
        link: v.link,
        what: "volume",
        ref: v.ref,
        kind: v.shape.kind === "box" ? BOX : CAPSULE,
        reach: reachOf(v.shape),
        volume: i,
      });
      shapes.push(v.shape);
    }
    for (const f of kin.bodies.framePoints) {
      items.push({
        link: f.link,
        what: "frame",
        ref: f.ref,
        kind: CAPSULE,
        reach: Math.hypot(...f.offset),
        volume: -1,
      });
      shapes.push({ kind: "capsule", a: f.offset, b: f.offset, radius: 0 });
    }
    this.items = items;
    this.local = new Float64Array(STRIDE * items.length);
    this.world = new Float64Array(STRIDE * items.length);
    for (const [i, s] of shapes.entries()) writeShape(this.local, STRIDE * i, s);
    this.#toFrame = toFrame;
    this.#identityFrame = toFrame.every((v, i) => v === (i % 5 === 0 ? 1 : 0));
    // Static items: in the workspace frame once and for all.
    for (const [i, it] of items.entries()) {
      if (it.ref < 0) {
        const s = shapes[i];
        if (s) writeShape(this.world, STRIDE * i, transformShape(toFrame, s));
      }
    }
  }

  /**
   * Writes item `i` in the workspace frame for the kernel's last `forward`
   * (`jointFrames`: 3×4 row-major per moving joint). Static items are
   * already there.
   */
  place(i: number, jointFrames: Float64Array): void {
    const it = this.items[i];
    if (!it || it.ref < 0) return;
    const m = this.#frameFor(it.ref, jointFrames);
    const L = this.local,
      W = this.world,
      o = STRIDE * i;
    if (it.kind === CAPSULE) {
      point(m, L, o, W, o);
      point(m, L, o + 3, W, o + 3);
      W[o + 6] = L[o + 6] ?? 0;
      return;
    }
    point(m, L, o, W, o);
    for (let a = 0; a < 3; a++) direction(m, L, o + 3 + 3 * a, W, o + 3 + 3 * a);
    W[o + 12] = L[o + 12] ?? 0;
    W[o + 13] = L[o + 13] ?? 0;
    W[o + 14] = L[o + 14] ?? 0;
  }

  /** The ref frame in workspace coordinates (3×4 row-major). */
  #frameFor(ref: number, jointFrames: Float64Array): Float64Array {
    const out = this.#frame;
    const b = 12 * ref;
    if (this.#identityFrame) {
      for (let i = 0; i < 12; i++) out[i] = jointFrames[b + i] ?? 0;
      return out;
    }
    const t = this.#toFrame;
    // out = toFrame (column-major 4×4) · jointFrame (row-major 3×4).
    for (let r = 0; r < 3; r++) {
      const t0 = t[r] ?? 0,
        t1 = t[4 + r] ?? 0,
        t2 = t[8 + r] ?? 0;
      for (let c = 0; c < 4; c++) {
        out[4 * r + c] =
          t0 * (jointFrames[b + c] ?? 0) +
          t1 * (jointFrames[b + 4 + c] ?? 0) +
          t2 * (jointFrames[b + 8 + c] ?? 0) +
          (c === 3 ? (t[12 + r] ?? 0) : 0);
      }
    }
    return out;
  }
}

function point(m: Float64Array, src: Float64Array, so: number, dst: Float64Array, d: number): void {
  const x = src[so] ?? 0,
    y = src[so + 1] ?? 0,
    z = src[so + 2] ?? 0;
  dst[d] = (m[0] ?? 0) * x + (m[1] ?? 0) * y + (m[2] ?? 0) * z + (m[3] ?? 0);
  dst[d + 1] = (m[4] ?? 0) * x + (m[5] ?? 0) * y + (m[6] ?? 0) * z + (m[7] ?? 0);
  dst[d + 2] = (m[8] ?? 0) * x + (m[9] ?? 0) * y + (m[10] ?? 0) * z + (m[11] ?? 0);
}

function direction(m: Float64Array, src: Float64Array, so: number, dst: Float64Array, d: number): void {
  const x = src[so] ?? 0,
    y = src[so + 1] ?? 0,
    z = src[so + 2] ?? 0;
  dst[d] = (m[0] ?? 0) * x + (m[1] ?? 0) * y + (m[2] ?? 0) * z;
  dst[d + 1] = (m[4] ?? 0) * x + (m[5] ?? 0) * y + (m[6] ?? 0) * z;
  dst[d + 2] = (m[8] ?? 0) * x + (m[9] ?? 0) * y + (m[10] ?? 0) * z;
}

function writeShape(out: Float64Array, o: number, s: VolumeShape): void {
  switch (s.kind) {
    case "capsule":
      out.set(s.a, o);
      out.set(s.b, o + 3);
      out[o + 6] = s.radius;
      return;
    case "box":
      out.set(s.center, o);
      out.set(s.axes[0], o + 3);
      out.set(s.axes[1], o + 6);
      out.set(s.axes[2], o + 9);
      out.set(s.half, o + 12);
      return;
  }
}

function reachOf(s: VolumeShape): number {
  // A rigid motion moves the volume no farther than its core points (the radius rides along).
  return Math.max(...corePoints(s).map((p) => Math.hypot(p[0], p[1], p[2])));
}
