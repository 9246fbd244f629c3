import { mat4 } from "gl-matrix";
import type { LinkVolumeSpec } from "../../config/envelopeConfig.js";
import { ArmbridgeError } from "../../errors.js";
import type { KinematicChain } from "../KinematicChain.js";
import type { UrdfJoint, UrdfModel } from "../parseUrdf.js";
import { fromXyzRpy, identity, multiply, type Transform } from "../rigidTransform.js";
import { fitBoundingVolume } from "./fitBoundingVolume.js";
import type { UrdfCollision } from "./parseUrdfCollisions.js";
import {
  corePoints,
  shapeRadius,
  transformShape,
  applyTransform,
  type LinkVolume,
  type Vec3,
  type VolumeShape,
} from "./VolumeShape.js";
import { volumeFromSpec, volumeFromUrdf } from "./volumeShapes.js";

/** One collision volume placed on the chain. */
export interface BodyVolume {
  readonly link: string;
  /** The chain variable whose frame (after its motion) carries it; -1: the base, which the chain does not move. */
  readonly ref: number;
  /** In the `ref` frame (the base frame for -1). */
  readonly shape: VolumeShape;
  readonly source: string;
  /** Links joined by fixed joints are one rigid body, one group. */
  readonly group: number;
  /**
   * It moves relative to `ref` through joints outside the chain (a gripper's
   * fingers, driven by the gripper): `shape` bounds its whole travel.
   */
  readonly swept: boolean;
}

/** A link frame of the chain that can move, as a point on its `ref` frame: the envelope checks it whether or not the link has a volume. */
export interface FramePoint {
  readonly link: string;
  readonly ref: number;
  readonly offset: Vec3;
}

/** A link pair never checked for self-collision, and why. */
export interface SkippedPair {
  readonly links: readonly [string, string];
  readonly why: "adjacent" | "allowed_contacts" | "rigid" | "static";
}

export interface ArmBodies {
  readonly volumes: readonly BodyVolume[];
  /** Every volume in its own link's frame, as configured (the config view draws these). */
  readonly linkVolumes: readonly LinkVolume[];
  readonly framePoints: readonly FramePoint[];
  /** Volume index pairs checked for self-collision (i < j). */
  readonly pairs: readonly (readonly [number, number])[];
  readonly skipped: readonly SkippedPair[];
  /** Links with volumes that no path of fixed or chain joints connects to the base (not checked). */
  readonly unplaced: readonly string[];
}

export interface ArmBodiesInput {
  readonly model: UrdfModel;
  readonly collisions: readonly UrdfCollision[];
  readonly chain: KinematicChain;
  /** The URDF file (meshes are resolved beside it); undefined when it came from a topic. */
  readonly urdfPath: string | undefined;
  readonly linkVolumes: Readonly<Record<string, readonly LinkVolumeSpec[]>>;
  readonly allowedContacts: readonly (readonly [string, string])[];
  readonly source: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Steps from a `ref` frame to a link: fixed transforms, and joints outside the chain that move it. */
type Step = { readonly fixed: Transform } | { readonly joint: UrdfJoint };

interface Placement {
  readonly ref: number;
  readonly steps: readonly Step[];
}

/** Between two samples of a swept joint no point moves more than this (m); the bound grows by half of it. */
const SWEEP_SPACING_M = 0.002;
const MAX_SWEEP_SAMPLES = 20_000;

/**
 * The arm's bodies as the envelope checks them: each link's volumes (the
 * config's `link_volumes` for that link, else its URDF `<collision>`s),
 * placed on the chain frame that carries them, and the pairs of volumes that
 * must never meet. Not checked against each other: volumes of one rigid body
 * (links joined by fixed joints), of adjacent bodies (joined by one joint —
 * they touch at that joint by design), pairs in `allowed_contacts`, and pairs
 * that the chain does not move relative to each other (both on the base).
 */
export function buildArmBodies(input: ArmBodiesInput): ArmBodies {
  refuseUnknownLinks(input);
  const linkVolumes = linkVolumesOf(input);
  const placements = placeLinks(input.model, input.chain);
  const groups = rigidGroups(input.model);
  const { volumes, unplaced } = placeVolumes(linkVolumes, placements, groups);
  const framePoints = framePointsOf(input.chain, placements);
  const { pairs, skipped } = pairsToCheck(input, volumes, groups);
  return { volumes, linkVolumes, framePoints, pairs, skipped, unplaced };
}

/** Every link the config names (link_volumes, allowed_contacts) must be a link of the robot. */
function refuseUnknownLinks(input: ArmBodiesInput): void {
  const { model } = input;
  const refuse = (key: string, link: string): never => {
    throw new ArmbridgeError("ARMB_ERR_URDF_MISMATCH", {
      path: input.source,
      reason: `${key} names ${link}, which is not a link of robot ${model.name} (links: ${[...model.links].join(", ")})`,
    });
  };
  for (const link of Object.keys(input.linkVolumes)) if (!model.links.has(link)) refuse("link_volumes", link);
  for (const link of input.allowedContacts.flat())
    if (!model.links.has(link)) refuse("workspace.allowed_contacts", link);
}

/** Each link's volumes in its own frame: the config's link_volumes for that link, else its URDF collisions. */
function linkVolumesOf(input: ArmBodiesInput): LinkVolume[] {
  const env = input.env ?? process.env;
  const linkVolumes: LinkVolume[] = [];
  for (const link of input.model.links) {
    const specs = input.linkVolumes[link];
    if (specs !== undefined) for (const spec of specs) linkVolumes.push(volumeFromSpec(link, spec));
    else
      for (const c of input.collisions) if (c.link === link) linkVolumes.push(volumeFromUrdf(c, input.urdfPath, env));
  }
  return linkVolumes;
}

/** Each volume moved onto the chain frame that carries it (swept over joints outside the chain). */
function placeVolumes(
  linkVolumes: readonly LinkVolume[],
  placements: ReadonlyMap<string, Placement>,
  groups: ReadonlyMap<string, number>,
): { volumes: BodyVolume[]; unplaced: string[] } {
  const volumes: BodyVolume[] = [];
  const unplaced = new Set<string>();
  for (const v of linkVolumes) {
    const p = placements.get(v.link);
    if (!p) {
      unplaced.add(v.link);
      continue;
    }
    const swept = p.steps.some((s) => "joint" in s);
    volumes.push({
      link: v.link,
      ref: p.ref,
      shape: swept ? sweptShape(p.steps, v.shape) : transformShape(fixedPart(p.steps), v.shape),
      source: v.source,
      group: groups.get(v.link) ?? -1,
      swept,
    });
  }
  return { volumes, unplaced: [...unplaced] };
}

/** The origin of every chain link that moves, on its carrying frame. */
function framePointsOf(chain: KinematicChain, placements: ReadonlyMap<string, Placement>): FramePoint[] {
  const framePoints: FramePoint[] = [];
  for (const [i, link] of chain.linkNames.entries()) {
    if (!chain.linkMoves[i]) continue;
    const p = placements.get(link);
    if (!p) continue;
    framePoints.push({ link, ref: p.ref, offset: applyTransform(fixedPart(p.steps), [0, 0, 0]) });
  }
  return framePoints;
}

/** The volume pairs to check for self-collision, and the link pairs left out with why. */
function pairsToCheck(
  input: ArmBodiesInput,
  volumes: readonly BodyVolume[],
  groups: ReadonlyMap<string, number>,
): { pairs: [number, number][]; skipped: SkippedPair[] } {
  const adjacent = new Set<string>();
  for (const j of input.model.joints) {
    if (j.type === "fixed") continue;
    const a = groups.get(j.parent) ?? -1,
      b = groups.get(j.child) ?? -1;
    adjacent.add(`${Math.min(a, b)}:${Math.max(a, b)}`);
  }
  const allowed = new Set(input.allowedContacts.map(([a, b]) => pairKey(a, b)));
  const pairs: [number, number][] = [];
  const skipped = new Map<string, SkippedPair>();
  for (let i = 0; i < volumes.length; i++) {
    for (let j = i + 1; j < volumes.length; j++) {
      const v = volumes[i],
        w = volumes[j];
      if (!v || !w || v.link === w.link) continue;
      const skip = (why: SkippedPair["why"]): void => {
        const key = pairKey(v.link, w.link);
        if (!skipped.has(key)) skipped.set(key, { links: [v.link, w.link], why });
      };
      if (v.group === w.group) skip("rigid");
      else if (adjacent.has(`${Math.min(v.group, w.group)}:${Math.max(v.group, w.group)}`)) skip("adjacent");
      else if (allowed.has(pairKey(v.link, w.link))) skip("allowed_contacts");
      else if (v.ref < 0 && w.ref < 0) skip("static");
      else if (v.ref === w.ref && !v.swept && !w.swept) skip("rigid");
      else pairs.push([i, j]);
    }
  }
  return { pairs, skipped: [...skipped.values()] };
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/**
 * Where each link hangs: links rigidly attached to the base on the base
 * (-1), each chain link on its moving joint's frame, and everything below
 * them through fixed joints on the same frame — or, through a joint that is
 * not part of the chain, with that joint as a step to sweep over.
 */
function placeLinks(model: UrdfModel, chain: KinematicChain): Map<string, Placement> {
  const variableOf = new Map(chain.variables.map((v, k) => [v.name, k]));
  const chainJoints = new Set<string>();
  const byChild = new Map(model.joints.map((j) => [j.child, j]));
  for (let link = chain.tipLink; link !== chain.baseLink;) {
    const j = byChild.get(link);
    if (!j) break;
    chainJoints.add(j.name);
    link = j.parent;
  }
  const out = new Map<string, Placement>();
  const queue: string[] = [];
  for (const [link, t] of chain.fixedFrames) {
    out.set(link, { ref: -1, steps: [{ fixed: t }] });
    queue.push(link);
  }
  const children = new Map<string, UrdfJoint[]>();
  for (const j of model.joints) children.set(j.parent, [...(children.get(j.parent) ?? []), j]);
  while (queue.length > 0) {
    const link = queue.shift() ?? "";
    const here = out.get(link);
    if (!here) continue;
    for (const j of children.get(link) ?? []) {
      if (out.has(j.child)) continue;
      const origin = fromXyzRpy(j.xyz, j.rpy);
      const k = variableOf.get(j.name);
      let placed: Placement;
      if (j.type === "fixed") placed = { ref: here.ref, steps: [...here.steps, { fixed: origin }] };
      else if (k !== undefined && chainJoints.has(j.name)) placed = { ref: k, steps: [] };
      else placed = { ref: here.ref, steps: [...here.steps, { fixed: origin }, { joint: j }] };
      out.set(j.child, placed);
      queue.push(j.child);
    }
  }
  return out;
}

/** The transform of a placement with no swept joints (their steps are all fixed). */
function fixedPart(steps: readonly Step[]): Transform {
  let t = identity();
  for (const s of steps) if ("fixed" in s) t = multiply(t, s.fixed);
  return t;
}

/**
 * The volume over the whole travel of the joints outside the chain between
 * its ref frame and its link: the shape's core points at samples of every
 * joint (no point moves more than SWEEP_SPACING_M between samples), bounded,
 * and grown by the shape's radius and half the spacing.
 */
function sweptShape(steps: readonly Step[], shape: VolumeShape): VolumeShape {
  const core = corePoints(shape);
  const farthest = Math.max(...core.map((p) => Math.hypot(p[0], p[1], p[2])));
  // Per swept joint: its values to sample, and half the largest move of a point between two of them.
  const plans: { readonly values: number[]; readonly halfStep: number }[] = [];
  for (const [i, s] of steps.entries()) {
    if (!("joint" in s)) continue;
    let reach = farthest;
    for (const later of steps.slice(i + 1)) {
      if ("fixed" in later) reach += Math.hypot(later.fixed[12] ?? 0, later.fixed[13] ?? 0, later.fixed[14] ?? 0);
      else if (later.joint.type === "prismatic")
        reach += Math.max(Math.abs(later.joint.limit?.lower ?? 0), Math.abs(later.joint.limit?.upper ?? 0));
    }
    const lo = s.joint.limit?.lower ?? -Math.PI,
      hi = s.joint.limit?.upper ?? Math.PI;
    const perUnit = s.joint.type === "prismatic" ? 1 : reach;
    const n = Math.max(1, Math.ceil(((hi - lo) * perUnit) / SWEEP_SPACING_M));
    plans.push({
      values: Array.from({ length: n + 1 }, (_, m) => lo + ((hi - lo) * m) / n),
      halfStep: ((hi - lo) * perUnit) / n / 2,
    });
  }
  const combos = plans.reduce((c, p) => c * p.values.length, 1);
  if (combos > MAX_SWEEP_SAMPLES)
    throw new RangeError(
      `a link behind ${plans.length} joints outside the chain needs ${combos} samples to bound; give it a link_volumes entry`,
    );
  const points: Vec3[] = [];
  const walk = (i: number, t: Transform, joint: number): void => {
    if (i === steps.length) {
      for (const p of core) points.push(applyTransform(t, p));
      return;
    }
    const s = steps[i];
    if (!s) return;
    if ("fixed" in s) return walk(i + 1, multiply(t, s.fixed), joint);
    for (const value of plans[joint]?.values ?? []) walk(i + 1, multiply(t, motionOf(s.joint, value)), joint + 1);
  };
  walk(0, identity(), 0);
  const grow = shapeRadius(shape) + plans.reduce((g, p) => g + p.halfStep, 0);
  return fitBoundingVolume(points, { grow });
}

function motionOf(j: UrdfJoint, value: number): Transform {
  const out = identity();
  if (j.type === "prismatic") mat4.fromTranslation(out, [j.axis[0] * value, j.axis[1] * value, j.axis[2] * value]);
  else mat4.fromRotation(out, value, j.axis);
  return out;
}

/** Links joined by fixed joints share a group id (one rigid body). */
function rigidGroups(model: UrdfModel): Map<string, number> {
  const parent = new Map<string, string>([...model.links].map((l) => [l, l]));
  const find = (l: string): string => {
    let r = l;
    while (parent.get(r) !== r) r = parent.get(r) ?? r;
    return r;
  };
  for (const j of model.joints) if (j.type === "fixed") parent.set(find(j.child), find(j.parent));
  const ids = new Map<string, number>();
  const out = new Map<string, number>();
  for (const l of model.links) {
    const root = find(l);
    if (!ids.has(root)) ids.set(root, ids.size);
    out.set(l, ids.get(root) ?? -1);
  }
  return out;
}
