import { ArmbridgeError } from "../errors.js";
import type { MotionPlan, MotionRefusal } from "../motion/MotionPlan.js";
import { jointVectorOf, type ArmKinematics } from "./armKinematics.js";
import type { ComputeIkOutcome } from "./moveitComputeIk.js";
import type { RemoteIkSolver } from "./RemoteIkSolver.js";
import {
  identity,
  invert,
  multiply,
  positionOf,
  quaternionOf,
  transformPoint,
  type Quaternion,
  type Transform,
} from "./rigidTransform.js";
import { solveIk } from "./solveIk.js";

export interface CartesianGoal {
  /** Metres, in `frame`. */
  readonly position: readonly [number, number, number];
  /** The wanted tip orientation in `frame`; undefined: keep the current one when the arm can, else free. */
  readonly orientation: Transform | undefined;
  /** A link rigidly attached to the base; the base link when undefined. */
  readonly frame: string | undefined;
  /** Whether the orientation is what the caller asked for (refuse if unreachable) or only preferred. */
  readonly orientationRequired: boolean;
}

/**
 * An answer from a remote IK service puts the tip at most this far from the
 * target by the bridge's own FK, or it is refused: a MoveIt whose URDF
 * differs from ours must not move the arm somewhere else than asked.
 */
const REMOTE_POSITION_CHECK_M = 0.002;
const REMOTE_ROTATION_CHECK_RAD = 0.01;

/**
 * Turns a Cartesian goal into a joint move: IK from the arm's current joints
 * (the motion itself is then an ordinary joint move through the executor).
 * Unreachable → a refusal naming the closest point the solver reached. With
 * `kinematics: moveit`, planCartesianMoveRemote asks that service instead,
 * and its answer is checked by this bridge's FK; the envelope check that
 * follows in the executor applies to it like to any motion.
 */
export function planCartesianMove(
  kin: ArmKinematics,
  goal: CartesianGoal,
  pose: Readonly<Record<string, number>> | undefined,
  tool: string,
  speed: number,
): MotionPlan {
  const prepared = prepare(kin, goal, pose, tool, speed);
  if (prepared.kind === "refused") return prepared.plan;
  const { position, orientation, q0, frameName, baseFromFrame } = prepared;
  const { chain } = kin;
  let result = solveIk(chain, { position, orientation }, q0);
  if (!result.ok && orientation && !goal.orientationRequired) result = solveIk(chain, { position }, q0);
  if (!result.ok) {
    const frameFromBase = invert(baseFromFrame);
    const closest = transformPoint(frameFromBase, result.closest);
    const gap = Math.hypot(closest[0] - goal.position[0], closest[1] - goal.position[1], closest[2] - goal.position[2]);
    const what =
      orientation && goal.orientationRequired
        ? "no joint position within the limits reaches that position with that orientation"
        : "no joint position within the limits reaches that point";
    const reason = `${what}; the closest reachable point found is (${closest.map((v) => v.toFixed(3)).join(", ")}) m in ${frameName}, ${gap.toFixed(3)} m away`;
    const e = new ArmbridgeError("ARMB_ERR_TARGET_UNREACHABLE", { tool, reason });
    return {
      targets: {},
      speed,
      refusal: { ok: false, code: e.code, issues: [{ path: "(target)", code: "unreachable", message: e.message }] },
    };
  }
  return { targets: targetsOf(kin, result.q), speed };
}

interface Prepared {
  readonly kind: "ready";
  readonly position: [number, number, number];
  readonly orientation: Transform | undefined;
  readonly q0: Float64Array;
  readonly frameName: string;
  readonly baseFromFrame: Transform;
}

/** The goal in the base frame, the current joints, and the orientation to solve for (or a refusal). */
function prepare(
  kin: ArmKinematics,
  goal: CartesianGoal,
  pose: Readonly<Record<string, number>> | undefined,
  tool: string,
  speed: number,
): Prepared | { readonly kind: "refused"; readonly plan: MotionPlan } {
  const refuse = (refusal: MotionRefusal): { kind: "refused"; plan: MotionPlan } => ({
    kind: "refused",
    plan: { targets: {}, speed, refusal },
  });
  const q0 = jointVectorOf(kin, pose);
  if (!q0) {
    const e = new ArmbridgeError("ARMB_ERR_POSE_UNKNOWN", {
      tool,
      reason: pose ? "a joint of the chain has no reported position" : "no status from the arm yet",
    });
    return refuse({ ok: false, code: e.code, issues: [{ path: "(pose)", code: "pose_unknown", message: e.message }] });
  }
  const { chain } = kin;
  const frameName = goal.frame ?? chain.baseLink;
  const baseFromFrame = chain.fixedFrames.get(frameName) ?? identity();
  const position = transformPoint(baseFromFrame, goal.position);
  const sixAxis = chain.dof >= 6;

  let orientation: Transform | undefined;
  if (goal.orientation) {
    // In the base frame (only the rotation part is used by the solver).
    orientation = multiply(baseFromFrame, goal.orientation);
  } else if (sixAxis) {
    orientation = chain.tip(q0);
  }

  return { kind: "ready", position, orientation, q0, frameName, baseFromFrame };
}

function targetsOf(kin: ArmKinematics, q: Float64Array): Record<string, number> {
  const targets: Record<string, number> = {};
  for (const [k, name] of kin.jointNames.entries()) targets[name] = q[k] ?? 0;
  return targets;
}

/** Why a remote answer is refused: the error code, its reason, the issue code the model reads. */
interface RemoteRefusal {
  readonly code: "ARMB_ERR_TARGET_UNREACHABLE" | "ARMB_ERR_IK_SERVICE" | "ARMB_ERR_URDF_MISMATCH";
  readonly reason: string;
  readonly issue: string;
}

/** planCartesianMove with the IK asked of a remote service (`kinematics: moveit`). */
export async function planCartesianMoveRemote(
  kin: ArmKinematics,
  remote: RemoteIkSolver,
  goal: CartesianGoal,
  pose: Readonly<Record<string, number>> | undefined,
  tool: string,
  speed: number,
  signal?: AbortSignal,
): Promise<MotionPlan> {
  const prepared = prepare(kin, goal, pose, tool, speed);
  if (prepared.kind === "refused") return prepared.plan;
  const refuse = ({ code, reason, issue }: RemoteRefusal): MotionPlan => {
    const e =
      code === "ARMB_ERR_URDF_MISMATCH"
        ? new ArmbridgeError(code, { path: kin.source, reason })
        : new ArmbridgeError(code, { tool, reason });
    return {
      targets: {},
      speed,
      refusal: { ok: false, code: e.code, issues: [{ path: "(target)", code: issue, message: e.message }] },
    };
  };
  // MoveIt always solves a pose: with no orientation asked (a five-axis arm, or one left
  // free) it gets the current one, and the group's kinematics.yaml decides whether it
  // counts (position_only_ik for KDL); our check below then judges the position only.
  const orientation = quaternionOf(prepared.orientation ?? kin.chain.tip(prepared.q0));
  let outcome: ComputeIkOutcome;
  try {
    outcome = await remote.solve({ position: prepared.position, orientation, seed: prepared.q0 }, signal);
  } catch (error) {
    const reason =
      error instanceof ArmbridgeError ? `${remote.label}: ${error.message}` : `${remote.label}: ${String(error)}`;
    return refuse({ code: "ARMB_ERR_IK_SERVICE", reason, issue: "ik_service" });
  }
  if (!outcome.ok) return refuse(whyUnsolved(kin, remote, prepared, goal, outcome));
  const mismatch = mismatchByOwnUrdf(kin, remote.label, outcome.q, prepared, goal, orientation);
  if (mismatch) return refuse(mismatch);
  return { targets: targetsOf(kin, outcome.q), speed };
}

/** A remote "no solution", told apart: out of reach (with the closest point), or only rejected solutions. */
function whyUnsolved(
  kin: ArmKinematics,
  remote: RemoteIkSolver,
  p: Prepared,
  goal: CartesianGoal,
  outcome: { readonly unreachable: boolean; readonly reason: string },
): RemoteRefusal {
  if (!outcome.unreachable)
    return { code: "ARMB_ERR_IK_SERVICE", reason: `${remote.label}: ${outcome.reason}`, issue: "ik_service" };
  // MoveIt names no closest point; our own solver does, and tells apart "out of reach"
  // from "reachable, but MoveIt found only solutions it rejected (collisions)".
  const local = solveIk(
    kin.chain,
    { position: p.position, orientation: goal.orientationRequired ? p.orientation : undefined },
    p.q0,
  );
  const closest = transformPoint(invert(p.baseFromFrame), local.ok ? p.position : local.closest);
  const detail = local.ok
    ? `this bridge's own solver does reach it, so MoveIt likely found only solutions in collision (avoid_collisions) or ran out of search time`
    : `no solution within its search time; the closest reachable point this bridge's solver found is (${closest.map((v) => v.toFixed(3)).join(", ")}) m in ${p.frameName}`;
  return { code: "ARMB_ERR_TARGET_UNREACHABLE", reason: `${outcome.reason}: ${detail}`, issue: "unreachable" };
}

/** The remote answer, judged by our own URDF: inside our limits, at the target, turned as asked. */
function mismatchByOwnUrdf(
  kin: ArmKinematics,
  label: string,
  q: Float64Array,
  p: Prepared,
  goal: CartesianGoal,
  asked: Quaternion,
): RemoteRefusal | undefined {
  const { chain } = kin;
  const mismatch = (reason: string): RemoteRefusal => ({
    code: "ARMB_ERR_URDF_MISMATCH",
    reason,
    issue: "ik_mismatch",
  });
  for (const [k, v] of chain.variables.entries()) {
    const qk = q[k] ?? 0;
    if (qk < v.lower - 1e-6 || qk > v.upper + 1e-6)
      return mismatch(
        `${label} answered ${v.name} = ${qk.toFixed(4)}, outside this bridge's limits [${v.lower}, ${v.upper}]`,
      );
  }
  const tip = chain.tip(q);
  const reached = positionOf(tip);
  const miss = Math.hypot(reached[0] - p.position[0], reached[1] - p.position[1], reached[2] - p.position[2]);
  if (miss > REMOTE_POSITION_CHECK_M)
    return mismatch(
      `${label}'s solution puts ${chain.tipLink} ${(miss * 1000).toFixed(1)} mm from the target by this bridge's URDF (check that MoveIt and armbridge load the same robot)`,
    );
  if (p.orientation && goal.orientationRequired) {
    const a = quaternionOf(tip);
    const angle = 2 * Math.acos(Math.min(1, Math.abs(a.x * asked.x + a.y * asked.y + a.z * asked.z + a.w * asked.w)));
    if (angle > REMOTE_ROTATION_CHECK_RAD)
      return mismatch(
        `${label}'s solution turns ${chain.tipLink} ${angle.toFixed(3)} rad from the asked orientation by this bridge's URDF`,
      );
  }
  return undefined;
}
