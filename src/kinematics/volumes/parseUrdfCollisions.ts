import { asArray, attr, readUrdfDocument, tripleAt, type UrdfDocument, type UrdfFail } from "../readUrdfDocument.js";

export type UrdfGeometry =
  | { readonly kind: "box"; readonly size: readonly [number, number, number] }
  | { readonly kind: "cylinder"; readonly radius: number; readonly length: number }
  | { readonly kind: "sphere"; readonly radius: number }
  /** Not in the URDF spec, but written by several tools (urdfdom ≥ 4, Drake): a cylinder with hemispherical ends, length between the centres. */
  | { readonly kind: "capsule"; readonly radius: number; readonly length: number }
  | { readonly kind: "mesh"; readonly filename: string; readonly scale: readonly [number, number, number] };

/** One `<collision>` of a link: its geometry and `<origin>` in the link frame. */
export interface UrdfCollision {
  readonly link: string;
  readonly xyz: readonly [number, number, number];
  readonly rpy: readonly [number, number, number];
  readonly geometry: UrdfGeometry;
}

/**
 * Reads every link's `<collision>` elements (geometry and origin) from a
 * URDF: the arm's shape, used by the envelope's link volumes (parseUrdf
 * reads the kinematic tree of the same document). A malformed collision is
 * ARMB_ERR_URDF_INVALID naming the link; `<visual>` is ignored (what a link
 * looks like is not what it may touch).
 */
export function parseUrdfCollisions(text: string, source: string): UrdfCollision[] {
  return urdfCollisionsOf(readUrdfDocument(text, source));
}

/** The collisions of a URDF already read (see parseUrdfCollisions). */
export function urdfCollisionsOf({ robot, fail }: UrdfDocument): UrdfCollision[] {
  const out: UrdfCollision[] = [];
  for (const raw of asArray(robot.link)) {
    const l = raw as Record<string, unknown>;
    const link = typeof l.name === "string" ? l.name : "";
    for (const [i, c] of asArray(l.collision).entries()) {
      const where = `link ${link} <collision> #${i + 1}`;
      const col = (c ?? {}) as Record<string, unknown>;
      const origin = col.origin as Record<string, unknown> | undefined;
      const xyz = tripleAt(attr(origin, "xyz"), [0, 0, 0], `${where} <origin xyz>`, fail);
      const rpy = tripleAt(attr(origin, "rpy"), [0, 0, 0], `${where} <origin rpy>`, fail);
      const g = col.geometry as Record<string, unknown> | undefined;
      if (!g || typeof g !== "object") fail(`${where} has no <geometry>`);
      out.push({ link, xyz, rpy, geometry: geometryOf(g ?? {}, where, fail) });
    }
  }
  return out;
}

function geometryOf(g: Record<string, unknown>, where: string, fail: UrdfFail): UrdfGeometry {
  const positive = (el: unknown, key: string, what: string): number => {
    const v = Number(attr(el, key));
    if (!(Number.isFinite(v) && v > 0))
      fail(`${where} ${what} ${key} is ${String(attr(el, key))}, not a positive number of metres`);
    return v;
  };
  if (g.box !== undefined) {
    const size = tripleAt(attr(g.box, "size"), undefined, `${where} <box size>`, fail);
    if (size.some((v) => !(v > 0))) fail(`${where} <box size> must be three positive lengths`);
    return { kind: "box", size };
  }
  if (g.cylinder !== undefined)
    return {
      kind: "cylinder",
      radius: positive(g.cylinder, "radius", "<cylinder>"),
      length: positive(g.cylinder, "length", "<cylinder>"),
    };
  if (g.sphere !== undefined) return { kind: "sphere", radius: positive(g.sphere, "radius", "<sphere>") };
  if (g.capsule !== undefined)
    return {
      kind: "capsule",
      radius: positive(g.capsule, "radius", "<capsule>"),
      length: positive(g.capsule, "length", "<capsule>"),
    };
  if (g.mesh !== undefined) {
    const filename = attr(g.mesh, "filename");
    if (filename === undefined || filename === "") fail(`${where} <mesh> has no filename`);
    const scale = tripleAt(attr(g.mesh, "scale"), [1, 1, 1], `${where} <mesh scale>`, fail);
    return { kind: "mesh", filename: filename ?? "", scale };
  }
  return fail(`${where} has a <geometry> that is none of box, cylinder, sphere, capsule, mesh`);
}
