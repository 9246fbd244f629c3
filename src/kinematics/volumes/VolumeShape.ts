import type { Transform } from "../rigidTransform.js";

export type Vec3 = readonly [number, number, number];

/**
 * A collision volume, in some frame: a capsule (the points within `radius`
 * of segment a → b; a sphere when a = b), or an oriented box (centre, three
 * unit axes, half extents). Every URDF shape maps onto one of the two: a
 * sphere and a cylinder become the capsule around them (a cylinder gains
 * hemispherical caps, never loses volume), a box stays a box, a mesh becomes
 * the smaller of its bounding capsule and bounding box.
 */
export type VolumeShape =
  | { readonly kind: "capsule"; readonly a: Vec3; readonly b: Vec3; readonly radius: number }
  | { readonly kind: "box"; readonly center: Vec3; readonly axes: readonly [Vec3, Vec3, Vec3]; readonly half: Vec3 };

/** One collision volume of a link, in that link's frame, and where it came from (for logs and the config view). */
export interface LinkVolume {
  readonly link: string;
  readonly shape: VolumeShape;
  /** "urdf cylinder", "urdf mesh meshes/forearm.stl (bounding capsule)", "config link_volumes", … */
  readonly source: string;
}

export function applyTransform(t: Transform, p: Vec3): [number, number, number] {
  const [x, y, z] = p;
  return [
    (t[0] ?? 1) * x + (t[4] ?? 0) * y + (t[8] ?? 0) * z + (t[12] ?? 0),
    (t[1] ?? 0) * x + (t[5] ?? 1) * y + (t[9] ?? 0) * z + (t[13] ?? 0),
    (t[2] ?? 0) * x + (t[6] ?? 0) * y + (t[10] ?? 1) * z + (t[14] ?? 0),
  ];
}

export function rotate(t: Transform, v: Vec3): [number, number, number] {
  const [x, y, z] = v;
  return [
    (t[0] ?? 1) * x + (t[4] ?? 0) * y + (t[8] ?? 0) * z,
    (t[1] ?? 0) * x + (t[5] ?? 1) * y + (t[9] ?? 0) * z,
    (t[2] ?? 0) * x + (t[6] ?? 0) * y + (t[10] ?? 1) * z,
  ];
}

/** The same volume seen from another frame: `t` maps the volume's frame into it. */
export function transformShape(t: Transform, s: VolumeShape): VolumeShape {
  switch (s.kind) {
    case "capsule":
      return { kind: "capsule", a: applyTransform(t, s.a), b: applyTransform(t, s.b), radius: s.radius };
    case "box":
      return {
        kind: "box",
        center: applyTransform(t, s.center),
        axes: [rotate(t, s.axes[0]), rotate(t, s.axes[1]), rotate(t, s.axes[2])],
        half: s.half,
      };
  }
}

/**
 * The points whose convex hull, grown by `shapeRadius`, is the volume: a
 * capsule's two ends, a box's eight corners. A rigid motion moves the volume
 * no farther than it moves these points.
 */
export function corePoints(s: VolumeShape): Vec3[] {
  switch (s.kind) {
    case "capsule":
      return [s.a, s.b];
    case "box": {
      const out: Vec3[] = [];
      const [c, [u, v, w], [hu, hv, hw]] = [s.center, s.axes, s.half];
      for (const i of [-hu, hu])
        for (const j of [-hv, hv])
          for (const k of [-hw, hw]) {
            out.push([
              c[0] + i * u[0] + j * v[0] + k * w[0],
              c[1] + i * u[1] + j * v[1] + k * w[1],
              c[2] + i * u[2] + j * v[2] + k * w[2],
            ]);
          }
      return out;
    }
  }
}

export function shapeRadius(s: VolumeShape): number {
  return s.kind === "capsule" ? s.radius : 0;
}

/** Volume in m³, to choose the tighter of two bounds. */
export function shapeVolume(s: VolumeShape): number {
  switch (s.kind) {
    case "capsule": {
      const len = Math.hypot(s.b[0] - s.a[0], s.b[1] - s.a[1], s.b[2] - s.a[2]);
      return Math.PI * s.radius * s.radius * len + (4 / 3) * Math.PI * s.radius ** 3;
    }
    case "box":
      return 8 * s.half[0] * s.half[1] * s.half[2];
  }
}
