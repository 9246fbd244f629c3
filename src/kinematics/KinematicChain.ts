import { mat4 } from "gl-matrix";
import { ArmbridgeError } from "../errors.js";
import { ChainKernel } from "./ChainKernel.js";
import type { UrdfJoint, UrdfModel } from "./parseUrdf.js";
import { fromXyzRpy, identity, invert, multiply, type Transform } from "./rigidTransform.js";

/** A joint of the chain that moves: its name, type and travel. */
export interface ChainVariable {
  readonly name: string;
  readonly type: "revolute" | "prismatic";
  readonly lower: number;
  readonly upper: number;
}

interface ChainJoint {
  readonly name: string;
  readonly child: string;
  readonly origin: Transform;
  readonly axis: readonly [number, number, number];
  readonly type: UrdfJoint["type"];
  /** Index into the joint vector, or -1 for a fixed joint. */
  readonly variable: number;
}

/** Every frame FK computes for one joint vector, in the base frame. */
export interface ChainFrames {
  /** Per chain joint: the child link's frame (index i ↔ `linkNames[i]`). */
  readonly links: Transform[];
  /** Per variable: the frame the joint rotates or slides in (parent · origin), whose axis is `axes[k]`. */
  readonly jointFrames: Transform[];
}

/** A serial chain of a URDF from `baseLink` to `tipLink`, with forward kinematics. */
export class KinematicChain {
  readonly baseLink: string;
  readonly tipLink: string;
  readonly variables: readonly ChainVariable[];
  /** The child link of each chain joint, base to tip. */
  readonly linkNames: readonly string[];
  /** Per chain link: whether any variable lies upstream of it (a link that cannot move cannot leave an envelope). */
  readonly linkMoves: readonly boolean[];
  /** Links rigidly attached to the base (a path of fixed joints), with their pose in the base frame. */
  readonly fixedFrames: ReadonlyMap<string, Transform>;
  /** Allocation-free FK and Jacobian for the IK solver's inner loop. */
  readonly kernel: ChainKernel;
  readonly #joints: readonly ChainJoint[];
  readonly #variableJoint: readonly number[];

  /**
   * `narrow` may tighten a joint's limits (the arm config's own range): the
   * chain then uses the intersection with the URDF's.
   */
  constructor(
    model: UrdfModel,
    baseLink: string,
    tipLink: string,
    source: string,
    narrow?: (joint: string) => { readonly min: number; readonly max: number } | undefined,
  ) {
    const fail = (reason: string): ArmbridgeError =>
      new ArmbridgeError("ARMB_ERR_URDF_INVALID", { path: source, reason });
    if (!model.links.has(baseLink))
      throw fail(`base_link ${baseLink} is not a link of robot ${model.name} (links: ${listSome(model.links)})`);
    if (!model.links.has(tipLink))
      throw fail(`tip_link ${tipLink} is not a link of robot ${model.name} (links: ${listSome(model.links)})`);
    const byChild = new Map(model.joints.map((j) => [j.child, j]));
    const path: UrdfJoint[] = [];
    for (let link = tipLink; link !== baseLink;) {
      const j = byChild.get(link);
      if (!j) throw fail(`tip_link ${tipLink} does not descend from base_link ${baseLink}`);
      // parseUrdf refuses cycles; a model built some other way must not hang start-up either.
      if (path.length >= model.joints.length) throw fail(`the joints above tip_link ${tipLink} form a cycle`);
      path.push(j);
      link = j.parent;
    }
    path.reverse();
    const variables: ChainVariable[] = [];
    const joints: ChainJoint[] = [];
    const variableJoint: number[] = [];
    for (const j of path) {
      let variable = -1;
      if (j.type !== "fixed") {
        variable = variables.length;
        variableJoint.push(joints.length);
        const limit = j.limit ?? { lower: -Math.PI, upper: Math.PI };
        const extra = narrow?.(j.name);
        variables.push({
          name: j.name,
          type: j.type === "prismatic" ? "prismatic" : "revolute",
          lower: Math.max(limit.lower, extra?.min ?? -Infinity),
          upper: Math.min(limit.upper, extra?.max ?? Infinity),
        });
      }
      joints.push({
        name: j.name,
        child: j.child,
        origin: fromXyzRpy(j.xyz, j.rpy),
        axis: j.axis,
        type: j.type,
        variable,
      });
    }
    if (variables.length === 0) throw fail(`the chain ${baseLink} → ${tipLink} has no moving joint`);
    this.baseLink = baseLink;
    this.tipLink = tipLink;
    this.variables = variables;
    this.linkNames = joints.map((j) => j.child);
    let moving = false;
    this.linkMoves = joints.map((j) => (moving ||= j.variable >= 0));
    this.#joints = joints;
    this.#variableJoint = variableJoint;
    this.fixedFrames = fixedFramesOf(model, baseLink);
    this.kernel = new ChainKernel(joints, variables.length);
  }

  /**
   * An upper bound on the distance from variable k's joint origin to any link
   * frame downstream of it, in any configuration: the sum of the downstream
   * joint offsets (triangle inequality) plus the travel of downstream
   * prismatic joints. A rotation of Δ moves every downstream frame by at most
   * this × |Δ| (a slide of Δ by |Δ|).
   */
  sweepRadius(k: number): number {
    const from = this.#variableJoint[k] ?? 0;
    if (this.variables[k]?.type === "prismatic") return 1;
    let r = 0;
    for (let i = from + 1; i < this.#joints.length; i++) {
      const j = this.#joints[i];
      if (!j) continue;
      r += Math.hypot(j.origin[12] ?? 0, j.origin[13] ?? 0, j.origin[14] ?? 0);
      if (j.type === "prismatic") {
        const v = this.variables[j.variable];
        r += Math.max(Math.abs(v?.lower ?? 0), Math.abs(v?.upper ?? 0));
      }
    }
    return r;
  }

  /**
   * An upper bound, in any configuration, on the distance from variable
   * `from`'s joint origin to the origin of the frame after variable `to`
   * (from ≤ to): the joint offsets in between (triangle inequality) plus the
   * travel of prismatic joints in between. 0 when from = to.
   */
  originDistanceBound(from: number, to: number): number {
    const first = this.#variableJoint[from] ?? 0;
    const last = this.#variableJoint[to] ?? 0;
    let r = 0;
    for (let i = first + 1; i <= last; i++) {
      const j = this.#joints[i];
      if (!j) continue;
      r += Math.hypot(j.origin[12] ?? 0, j.origin[13] ?? 0, j.origin[14] ?? 0);
      if (j.type === "prismatic") {
        const v = this.variables[j.variable];
        r += Math.max(Math.abs(v?.lower ?? 0), Math.abs(v?.upper ?? 0));
      }
    }
    return r;
  }

  get dof(): number {
    return this.variables.length;
  }

  /** The tip's pose in the base frame for joint vector `q` (ordered as `variables`). */
  tip(q: ArrayLike<number>): Transform {
    const out = identity();
    const step = new Float64Array(16);
    for (const j of this.#joints) {
      mat4.multiply(out, out, j.origin);
      if (j.variable >= 0) mat4.multiply(out, out, this.#motion(step, j, q[j.variable] ?? 0));
    }
    return out;
  }

  /** Every link frame along the chain, and each moving joint's frame, for joint vector `q`. */
  frames(q: ArrayLike<number>, into?: ChainFrames): ChainFrames {
    const links = into?.links ?? this.#joints.map(() => new Float64Array(16));
    const jointFrames = into?.jointFrames ?? this.variables.map(() => new Float64Array(16));
    const step = new Float64Array(16);
    let prev: Transform = identity();
    for (const [i, j] of this.#joints.entries()) {
      const link = links[i] ?? new Float64Array(16);
      mat4.multiply(link, prev, j.origin);
      if (j.variable >= 0) {
        const jf = jointFrames[j.variable] ?? new Float64Array(16);
        mat4.copy(jf, link);
        mat4.multiply(link, link, this.#motion(step, j, q[j.variable] ?? 0));
      }
      prev = link;
    }
    return { links, jointFrames };
  }

  /** The unit axis of variable `k` in its joint frame. */
  axisOf(k: number): readonly [number, number, number] {
    return this.#joints[this.#variableJoint[k] ?? 0]?.axis ?? [0, 0, 1];
  }

  #motion(out: Transform, j: ChainJoint, value: number): Transform {
    if (j.type === "prismatic") {
      mat4.fromTranslation(out, [j.axis[0] * value, j.axis[1] * value, j.axis[2] * value]);
    } else {
      mat4.fromRotation(out, value, j.axis);
    }
    return out;
  }
}

/**
 * Links joined to `baseLink` by fixed joints only (up or down the tree), and
 * their pose in the base frame: one breadth-first walk over the fixed joints,
 * each looked at once from either end, so linear in the size of the model.
 */
function fixedFramesOf(model: UrdfModel, baseLink: string): Map<string, Transform> {
  const touching = new Map<string, UrdfJoint[]>();
  for (const j of model.joints) {
    if (j.type !== "fixed") continue;
    for (const link of [j.parent, j.child]) {
      const list = touching.get(link);
      if (list) list.push(j);
      else touching.set(link, [j]);
    }
  }
  const out = new Map<string, Transform>([[baseLink, identity()]]);
  const queue = [baseLink];
  for (let next = 0; next < queue.length; next++) {
    const link = queue[next] ?? baseLink;
    const here = out.get(link) ?? identity();
    for (const j of touching.get(link) ?? []) {
      if (j.parent === link && !out.has(j.child)) {
        out.set(j.child, multiply(here, fromXyzRpy(j.xyz, j.rpy)));
        queue.push(j.child);
      } else if (j.child === link && !out.has(j.parent)) {
        out.set(j.parent, multiply(here, invert(fromXyzRpy(j.xyz, j.rpy))));
        queue.push(j.parent);
      }
    }
  }
  return out;
}

/** Up to 20 names, then how many more: an error message stays readable whatever the model's size. */
function listSome(names: Iterable<string>): string {
  const all = [...names];
  return all.length <= 20 ? all.join(", ") : `${all.slice(0, 20).join(", ")} … (${all.length - 20} more)`;
}
