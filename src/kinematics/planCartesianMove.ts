import { ArmbridgeError } from "../errors.js";
import type { MotionRefusal } from "../safety/checkMotionEnvelope.js";
import type { MotionPlan } from "../tools/ToolDefinition.js";
import { jointVectorOf, type ArmKinematics } from "./armKinematics.js";
import { identity, invert, multiply, transformPoint, type Transform } from "./rigidTransform.js";
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
 * Turns a Cartesian goal into a joint move: IK from the arm's current joints
 * (the motion itself is then an ordinary joint move through the executor).
 * Unreachable → a refusal naming the closest point the solver reached.
 */
export function planCartesianMove(kin: ArmKinematics, goal: CartesianGoal, pose: Readonly<Record<string, number>> | undefined, tool: string, speed: number): MotionPlan {
  const refuse = (refusal: MotionRefusal): MotionPlan => ({ targets: {}, speed, refusal });
  const q0 = jointVectorOf(kin, pose);
  if (!q0) {
    const e = new ArmbridgeError("ARMB_ERR_POSE_UNKNOWN", { tool, reason: pose ? "a joint of the chain has no reported position" : "no status from the arm yet" });
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

  let result = solveIk(chain, { position, orientation }, q0);
  if (!result.ok && orientation && !goal.orientationRequired) result = solveIk(chain, { position }, q0);
  if (!result.ok) {
    const frameFromBase = invert(baseFromFrame);
    const closest = transformPoint(frameFromBase, result.closest);
    const gap = Math.hypot(closest[0] - goal.position[0], closest[1] - goal.position[1], closest[2] - goal.position[2]);
    const what = orientation && goal.orientationRequired ? "no joint position within the limits reaches that position with that orientation" : "no joint position within the limits reaches that point";
    const reason = `${what}; the closest reachable point found is (${closest.map((v) => v.toFixed(3)).join(", ")}) m in ${frameName}, ${gap.toFixed(3)} m away`;
    const e = new ArmbridgeError("ARMB_ERR_TARGET_UNREACHABLE", { tool, reason });
    return refuse({ ok: false, code: e.code, issues: [{ path: "(target)", code: "unreachable", message: e.message }] });
  }
  const targets: Record<string, number> = {};
  for (const [k, name] of kin.jointNames.entries()) targets[name] = result.q[k] ?? 0;
  return { targets, speed };
}
