import { XMLParser, XMLValidator } from "fast-xml-parser";
import { ArmbridgeError } from "../errors.js";

export type UrdfJointType = "revolute" | "continuous" | "prismatic" | "fixed";

/** One `<joint>` of a URDF, as far as kinematics need it (lengths in metres, angles in radians). */
export interface UrdfJoint {
  readonly name: string;
  readonly type: UrdfJointType;
  readonly parent: string;
  readonly child: string;
  /** `<origin xyz>`: the child frame's offset in the parent frame at q = 0. */
  readonly xyz: readonly [number, number, number];
  /** `<origin rpy>`: fixed-axis roll (x), pitch (y), yaw (z), applied in that order. */
  readonly rpy: readonly [number, number, number];
  /** `<axis xyz>` in the joint frame, normalised; the URDF default is (1, 0, 0). */
  readonly axis: readonly [number, number, number];
  /** `<limit lower upper>`; undefined for continuous and fixed joints. */
  readonly limit: { readonly lower: number; readonly upper: number } | undefined;
}

export interface UrdfModel {
  readonly name: string;
  readonly links: ReadonlySet<string>;
  readonly joints: readonly UrdfJoint[];
}

/** The joint types that move the arm; planar and floating joints cannot be part of an arm's serial chain. */
const SUPPORTED: Readonly<Record<UrdfJointType, true>> = { revolute: true, continuous: true, prismatic: true, fixed: true };

/**
 * Parses the kinematic part of a URDF (links, joints, origins, axes, limits)
 * with fast-xml-parser. Geometry, inertia and transmissions are ignored.
 * Anything malformed is an `ARMB_ERR_URDF_INVALID` naming the element.
 */
export function parseUrdf(text: string, source: string): UrdfModel {
  const fail = (reason: string): never => {
    throw new ArmbridgeError("ARMB_ERR_URDF_INVALID", { path: source, reason });
  };
  const valid = XMLValidator.validate(text);
  if (valid !== true) fail(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    parseAttributeValue: false,
    isArray: (_name, jPath) => jPath === "robot.link" || jPath === "robot.joint",
  });
  const doc = parser.parse(text) as Record<string, unknown>;
  const robot = doc.robot as Record<string, unknown> | undefined;
  if (!robot || typeof robot !== "object") return fail("no <robot> element");
  const name = typeof robot.name === "string" ? robot.name : "robot";

  const links = new Set<string>();
  for (const [i, l] of asArray(robot.link).entries()) {
    const linkName = (l as Record<string, unknown>).name;
    if (typeof linkName !== "string" || linkName === "") fail(`<link> #${i + 1} has no name`);
    if (links.has(linkName as string)) fail(`link ${String(linkName)} is defined twice`);
    links.add(linkName as string);
  }

  const joints: UrdfJoint[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of asArray(robot.joint).entries()) {
    const j = raw as Record<string, unknown>;
    const jointName = typeof j.name === "string" && j.name !== "" ? j.name : fail(`<joint> #${i + 1} has no name`);
    const where = `joint ${jointName}`;
    if (seen.has(jointName)) fail(`${where} is defined twice`);
    seen.add(jointName);
    const type = j.type;
    if (typeof type !== "string" || !(type in SUPPORTED)) fail(`${where} has type ${String(type)}; supported: ${Object.keys(SUPPORTED).join(", ")}`);
    const parent = attr(j.parent, "link") ?? fail(`${where} has no <parent link>`);
    const child = attr(j.child, "link") ?? fail(`${where} has no <child link>`);
    if (!links.has(parent)) fail(`${where}: parent link ${parent} is not defined`);
    if (!links.has(child)) fail(`${where}: child link ${child} is not defined`);
    const xyz = vector(attr(j.origin, "xyz"), [0, 0, 0], `${where} <origin xyz>`, fail);
    const rpy = vector(attr(j.origin, "rpy"), [0, 0, 0], `${where} <origin rpy>`, fail);
    let axis = vector(attr(j.axis, "xyz"), [1, 0, 0], `${where} <axis xyz>`, fail);
    const norm = Math.hypot(...axis);
    if (type !== "fixed") {
      if (!(norm > 1e-9)) fail(`${where} has a zero <axis>`);
      axis = [axis[0] / norm, axis[1] / norm, axis[2] / norm];
    }
    let limit: UrdfJoint["limit"];
    if (type === "revolute" || type === "prismatic") {
      const lower = Number(attr(j.limit, "lower") ?? "0");
      const upper = Number(attr(j.limit, "upper") ?? "0");
      if (j.limit === undefined) fail(`${where} (${type}) needs a <limit>`);
      if (!Number.isFinite(lower) || !Number.isFinite(upper) || lower > upper) fail(`${where} has limits [${lower}, ${upper}]`);
      limit = { lower, upper };
    }
    joints.push({ name: jointName, type: type as UrdfJointType, parent, child, xyz, rpy, axis, limit });
  }
  const children = new Set<string>();
  for (const j of joints) {
    if (children.has(j.child)) fail(`link ${j.child} is the child of more than one joint; a URDF is a tree`);
    children.add(j.child);
  }
  return { name, links, joints };
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

function vector(text: string | undefined, fallback: [number, number, number], where: string, fail: (reason: string) => never): [number, number, number] {
  if (text === undefined) return fallback;
  const parts = text.trim().split(/\s+/).map(Number);
  if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p))) fail(`${where} is "${text}", not three numbers`);
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}
