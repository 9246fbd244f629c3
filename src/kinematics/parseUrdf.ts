import { unitVector } from "../geometry/unitVector.js";
import { asArray, attr, readUrdfDocument, tripleAt, type UrdfDocument } from "./readUrdfDocument.js";

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

/** No joint of a robot sits further than this (metres) from its parent link. */
const MAX_OFFSET_M = 10_000;

/** The joint types that move the arm; planar and floating joints cannot be part of an arm's serial chain. */
const SUPPORTED: Readonly<Record<UrdfJointType, true>> = {
  revolute: true,
  continuous: true,
  prismatic: true,
  fixed: true,
};

/**
 * Parses the kinematic part of a URDF (links, joints, origins, axes, limits).
 * Geometry, inertia and transmissions are ignored here (the collision
 * geometry is parseUrdfCollisions'). Anything malformed is an
 * `ARMB_ERR_URDF_INVALID` naming the element.
 */
export function parseUrdf(text: string, source: string): UrdfModel {
  return urdfModelOf(readUrdfDocument(text, source));
}

/** The kinematic tree of a URDF already read (see parseUrdf). */
export function urdfModelOf({ robot, fail }: UrdfDocument): UrdfModel {
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
    if (typeof type !== "string" || !(type in SUPPORTED))
      fail(`${where} has type ${String(type)}; supported: ${Object.keys(SUPPORTED).join(", ")}`);
    const parent = attr(j.parent, "link") ?? fail(`${where} has no <parent link>`);
    const child = attr(j.child, "link") ?? fail(`${where} has no <child link>`);
    if (!links.has(parent)) fail(`${where}: parent link ${parent} is not defined`);
    if (!links.has(child)) fail(`${where}: child link ${child} is not defined`);
    const xyz = tripleAt(attr(j.origin, "xyz"), [0, 0, 0], `${where} <origin xyz>`, fail);
    // Lengths along a chain are summed (FK, the envelope's sweep bound): an absurd offset would overflow them to Infinity or NaN.
    if (xyz.some((v) => Math.abs(v) > MAX_OFFSET_M))
      fail(
        `${where} <origin xyz="${attr(j.origin, "xyz") ?? ""}"> is more than ${MAX_OFFSET_M} m from its parent; a URDF is in metres`,
      );
    const rpy = tripleAt(attr(j.origin, "rpy"), [0, 0, 0], `${where} <origin rpy>`, fail);
    let axis = tripleAt(attr(j.axis, "xyz"), [1, 0, 0], `${where} <axis xyz>`, fail);
    if (type !== "fixed") {
      const unit = unitVector(axis, 1e-9);
      if (!unit.ok) return fail(`${where}'s <axis xyz="${attr(j.axis, "xyz") ?? ""}"> ${unit.message}`);
      axis = [unit.unit[0] ?? 0, unit.unit[1] ?? 0, unit.unit[2] ?? 0];
    }
    let limit: UrdfJoint["limit"];
    if (type === "revolute" || type === "prismatic") {
      const lower = Number(attr(j.limit, "lower") ?? "0");
      const upper = Number(attr(j.limit, "upper") ?? "0");
      if (j.limit === undefined) fail(`${where} (${type}) needs a <limit>`);
      if (!Number.isFinite(lower) || !Number.isFinite(upper) || lower > upper)
        fail(`${where} has limits [${lower}, ${upper}]`);
      if (type === "prismatic" && Math.max(Math.abs(lower), Math.abs(upper)) > MAX_OFFSET_M)
        fail(`${where} slides to [${lower}, ${upper}] m, more than ${MAX_OFFSET_M} m; a URDF is in metres`);
      limit = { lower, upper };
    }
    joints.push({ name: jointName, type: type as UrdfJointType, parent, child, xyz, rpy, axis, limit });
  }
  const parentJoint = new Map<string, UrdfJoint>();
  for (const j of joints) {
    if (parentJoint.has(j.child)) fail(`link ${j.child} is the child of more than one joint; a URDF is a tree`);
    parentJoint.set(j.child, j);
  }
  const cycle = findCycle(links, parentJoint);
  if (cycle)
    fail(
      `joints ${cycle.join(" → ")} form a cycle (each link's parent chain leads back to itself); a URDF is a tree`,
      cycle,
    );
  return { name, links, joints };
}

/**
 * The joints of a cycle in the parent relation, or undefined for a forest.
 * Each link is walked up its parents once (links already known to reach a
 * root stop the walk), so this is linear in the number of links.
 */
function findCycle(links: ReadonlySet<string>, parentJoint: ReadonlyMap<string, UrdfJoint>): string[] | undefined {
  const done = new Set<string>();
  for (const start of links) {
    const onWalk = new Map<string, number>();
    const walk: UrdfJoint[] = [];
    let link: string | undefined = start;
    while (link !== undefined && !done.has(link)) {
      const seenAt = onWalk.get(link);
      if (seenAt !== undefined)
        return walk
          .slice(seenAt)
          .map((j) => j.name)
          .reverse();
      onWalk.set(link, walk.length);
      const j = parentJoint.get(link);
      if (!j) break;
      walk.push(j);
      link = j.parent;
    }
    for (const l of onWalk.keys()) done.add(l);
  }
  return undefined;
}
