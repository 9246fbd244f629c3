import { ArmbridgeError } from "../errors.js";
import type { Quaternion } from "./rigidTransform.js";

/**
 * The one thing a compute_ik call needs of ROS: a service client that takes a
 * request and calls back with the answer (the ROS 2 host hands one out,
 * Ros2Host.serviceClient). Kinematics never sees a node.
 */
export interface IkServiceClient {
  sendRequest(request: object, callback: (response: unknown) => void): void;
}

/** MoveIt's IK service and its type (moveit_msgs/srv/GetPositionIK, served by move_group). */
export const COMPUTE_IK_SERVICE = "/compute_ik";
export const COMPUTE_IK_TYPE = "moveit_msgs/srv/GetPositionIK";

/**
 * moveit_msgs/msg/MoveItErrorCodes values a compute_ik answer may carry
 * (github.com/moveit/moveit_msgs, msg/MoveItErrorCodes.msg). Anything else is
 * reported by number.
 */
const MOVEIT_ERROR_CODES: Readonly<Record<number, string>> = {
  1: "SUCCESS",
  99999: "FAILURE",
  [-6]: "TIMED_OUT",
  [-10]: "START_STATE_IN_COLLISION",
  [-12]: "GOAL_IN_COLLISION",
  [-15]: "INVALID_GROUP_NAME",
  [-17]: "INVALID_ROBOT_STATE",
  [-18]: "INVALID_LINK_NAME",
  [-21]: "FRAME_TRANSFORM_FAILURE",
  [-31]: "NO_IK_SOLUTION",
};
const SUCCESS = 1;
const NO_IK_SOLUTION = -31;

export interface ComputeIkRequest {
  /** The MoveIt planning group (SRDF) of the arm. */
  readonly group: string;
  /** Frame of `position`/`orientation` (the URDF base link). */
  readonly frame: string;
  readonly tipLink: string;
  /** The chain's joints, in order; the answer is read back in this order. */
  readonly jointNames: readonly string[];
  /** The current joints: MoveIt's solver starts from the seed state. */
  readonly seed: ArrayLike<number>;
  readonly position: readonly [number, number, number];
  /**
   * MoveIt always takes a full pose; for a position-only solve send the
   * current orientation and set `position_only_ik: true` for the group in
   * MoveIt's kinematics.yaml (KDL plugin).
   */
  readonly orientation: Quaternion;
  /** MoveIt's own search time. */
  readonly solveTimeoutMs: number;
  readonly avoidCollisions: boolean;
}

export type ComputeIkOutcome =
  | { readonly ok: true; readonly q: Float64Array }
  | { readonly ok: false; readonly unreachable: boolean; readonly reason: string };

interface GetPositionIkResponse {
  readonly solution?: {
    readonly joint_state?: { readonly name?: readonly string[]; readonly position?: ArrayLike<number> };
  };
  readonly error_code?: { readonly val?: number };
}

/**
 * One `compute_ik` call to MoveIt's move_group (`kinematics: moveit`).
 * `timeoutMs` bounds our wait (the timer is always cleared) and `signal` ends
 * it early (shutdown): either way ARMB_ERR_ROS_TIMEOUT, and a late answer is
 * ignored. NO_IK_SOLUTION is an
 * unreachable target; other codes are reported by name.
 */
export async function computeIkWithMoveIt(
  client: IkServiceClient,
  request: ComputeIkRequest,
  options: { readonly timeoutMs: number; readonly signal?: AbortSignal | undefined },
): Promise<ComputeIkOutcome> {
  const secs = Math.floor(request.solveTimeoutMs / 1000);
  const message = {
    ik_request: {
      group_name: request.group,
      robot_state: { joint_state: { name: [...request.jointNames], position: Array.from(request.seed) } },
      avoid_collisions: request.avoidCollisions,
      ik_link_name: request.tipLink,
      pose_stamped: {
        header: { frame_id: request.frame },
        pose: {
          position: { x: request.position[0], y: request.position[1], z: request.position[2] },
          orientation: {
            x: request.orientation.x,
            y: request.orientation.y,
            z: request.orientation.z,
            w: request.orientation.w,
          },
        },
      },
      timeout: { sec: secs, nanosec: Math.round((request.solveTimeoutMs - secs * 1000) * 1e6) },
    },
  };
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let response: GetPositionIkResponse;
  try {
    response = await new Promise<GetPositionIkResponse>((resolve, reject) => {
      const giveUp = (): void =>
        reject(
          new ArmbridgeError("ARMB_ERR_ROS_TIMEOUT", {
            operation: `${COMPUTE_IK_SERVICE} call`,
            ms: options.timeoutMs,
          }),
        );
      if (options.signal?.aborted) return giveUp();
      timer = setTimeout(giveUp, options.timeoutMs);
      onAbort = giveUp;
      options.signal?.addEventListener("abort", onAbort, { once: true });
      // A late answer after giving up settles nothing: the promise is already rejected.
      client.sendRequest(message, (answer) => resolve(answer ?? {}));
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
  }
  const code = response.error_code?.val ?? 99999;
  if (code !== SUCCESS) {
    const name = MOVEIT_ERROR_CODES[code] ?? `error code ${code}`;
    return { ok: false, unreachable: code === NO_IK_SOLUTION, reason: `MoveIt's compute_ik answered ${name}` };
  }
  const names = response.solution?.joint_state?.name ?? [];
  const positions = response.solution?.joint_state?.position ?? [];
  const q = new Float64Array(request.jointNames.length);
  for (const [k, joint] of request.jointNames.entries()) {
    const i = names.indexOf(joint);
    const v = i >= 0 ? positions[i] : undefined;
    if (v === undefined || !Number.isFinite(v))
      return {
        ok: false,
        unreachable: false,
        reason: `MoveIt's compute_ik answered SUCCESS without a position for ${joint}`,
      };
    q[k] = v;
  }
  return { ok: true, q };
}
