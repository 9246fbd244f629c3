import { XMLParser } from "fast-xml-parser";
import { ArmbridgeError } from "../../errors.js";

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
 * URDF. Kept apart from parseUrdf, which reads the kinematic tree: this is
 * the arm's shape, used by the envelope's link volumes. A malformed
 * collision is ARMB_ERR_URDF_INVALID naming the link; `<visual>` is ignored
 * (what a link looks like is not what it may touch).
 */
export function parseUrdfCollisions(text: string, source: string): UrdfCollision[] {
  const fail = (reason: string): never => {
    throw new ArmbridgeError("ARMB_ERR_URDF_INVALID", { path: source, reason });
  };
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseAttributeValue: false,
    isArray: (_name, jPath) => jPath === "robot.link" || jPath === "robot.link.collision",
  });
  const doc = parser.parse(text) as Record<string, unknown>;
  const robot = doc.robot as Record<string, unknown> | undefined;
  if (!robot || typeof robot !== "object") return fail("no <robot> element");
  const out: UrdfCollision[] = [];
  for (const raw of asArray(robot.link)) {
    const l = raw as Record<string, unknown>;
    const link = typeof l.name === "string" ? l.name : "";
    for (const [i, c] of asArray(l.collision).entries()) {
      const where = `link ${link} <collision> #${i + 1}`;
      const col = (c ?? {}) as Record<string, unknown>;
      const origin = col.origin as Record<string, unknown> | undefined;
      const xyz = numbers(attr(origin, "xyz"), 3, [0, 0, 0], `${where} <origin xyz>`, fail);
      const rpy = numbers(attr(origin, "rpy"), 3, [0, 0, 0], `${where} <origin rpy>`, fail);
      const g = col.geometry as Record<string, unknown> | undefined;
      if (!g || typeof g !== "object") fail(`${where} has no <geometry>`);
      out.push({ link, xyz: triple(xyz), rpy: triple(rpy), geometry: geometryOf(g ?? {}, where, fail) });
    }
  }
  return out;
}

function geometryOf(g: Record<string, unknown>, where: string, fail: (reason: string) => never): UrdfGeometry {
  const positive = (el: unknown, key: string, what: string): number => {
    const v = Number(attr(el, key));
    if (!(Number.isFinite(v) && v > 0)) fail(`${where} ${what} ${key} is ${String(attr(el, key))}, not a positive number of metres`);
    return v;
  };
  if (g.box !== undefined) {
    const size = numbers(attr(g.box, "size"), 3, undefined, `${where} <box size>`, fail);
    if (size.some((v) => !(v > 0))) fail(`${where} <box size> must be three positive lengths`);
    return { kind: "box", size: triple(size) };
  }
  if (g.cylinder !== undefined) return { kind: "cylinder", radius: positive(g.cylinder, "radius", "<cylinder>"), length: positive(g.cylinder, "length", "<cylinder>") };
  if (g.sphere !== undefined) return { kind: "sphere", radius: positive(g.sphere, "radius", "<sphere>") };
  if (g.capsule !== undefined) return { kind: "capsule", radius: positive(g.capsule, "radius", "<capsule>"), length: positive(g.capsule, "length", "<capsule>") };
  if (g.mesh !== undefined) {
    const filename = attr(g.mesh, "filename");
    if (filename === undefined || filename === "") fail(`${where} <mesh> has no filename`);
    const scale = numbers(attr(g.mesh, "scale"), 3, [1, 1, 1], `${where} <mesh scale>`, fail);
    return { kind: "mesh", filename: filename ?? "", scale: triple(scale) };
  }
  return fail(`${where} has a <geometry> that is none of box, cylinder, sphere, capsule, mesh`);
}

function asArray(v: unknown): unknown[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function attr(el: unknown, key: string): string | undefined {
  if (!el || typeof el !== "object") return undefined;
  const v = (el as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

function numbers(text: string | undefined, count: number, fallback: number[] | undefined, where: string, fail: (reason: string) => never): number[] {
  if (text === undefined) return fallback ?? fail(`${where} is missing`);
  const parts = text.trim().split(/\s+/).map(Number);
  if (parts.length !== count || parts.some((p) => !Number.isFinite(p))) fail(`${where} is "${text}", not ${count} numbers`);
  return parts;
}

function triple(v: readonly number[]): [number, number, number] {
  return [v[0] ?? 0, v[1] ?? 0, v[2] ?? 0];
}
