import type { ArmKinematics } from "../../src/kinematics/armKinematics.js";
import type { IkServiceClient } from "../../src/kinematics/moveitComputeIk.js";
import { fromPositionQuaternion } from "../../src/kinematics/rigidTransform.js";
import { solveIk } from "../../src/kinematics/solveIk.js";

/** What the double answers a request with; `undefined` never answers (a move_group that hangs). */
export type ComputeIkAnswer = (
  request: ComputeIkRequestMessage,
) => { joints?: Record<string, number>; code: number } | undefined;

/** The moveit_msgs/srv/GetPositionIK request as the bridge sends it (the fields it sets). */
export interface ComputeIkRequestMessage {
  ik_request: {
    group_name: string;
    robot_state: { joint_state: { name: string[]; position: number[] } };
    avoid_collisions: boolean;
    ik_link_name: string;
    pose_stamped: {
      header: { frame_id: string };
      pose: {
        position: { x: number; y: number; z: number };
        orientation: { x: number; y: number; z: number; w: number };
      };
    };
    timeout: { sec: number; nanosec: number };
  };
}

/**
 * MoveIt's `/compute_ik` service as a test double: records every request (the
 * ground truth of what the bridge asked) and answers as `answer` says, after
 * `delayMs`. It stands alone — a node-like `createClient` — so it plugs into
 * the rclnodejs double or into a test directly. The answer is a
 * GetPositionIK response: `solution.joint_state` lists the joints in an
 * order of its own (as move_group reports the whole group, plus extras), and
 * `error_code.val` a MoveItErrorCodes value.
 */
export class ComputeIkServiceDouble {
  readonly type = "moveit_msgs/srv/GetPositionIK";
  readonly requests: ComputeIkRequestMessage[] = [];
  readonly #answer: ComputeIkAnswer;
  readonly #delayMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(answer: ComputeIkAnswer, options: { delayMs?: number } = {}) {
    this.#answer = answer;
    this.#delayMs = options.delayMs ?? 5;
  }

  createClient(
    typeClass: string,
    serviceName: string,
  ): IkServiceClient & { waitForService(timeout?: number): Promise<boolean> } {
    if (typeClass !== "moveit_msgs/srv/GetPositionIK" || serviceName.replace(/^\//, "") !== "compute_ik")
      throw new Error(`no such service ${serviceName} (${typeClass})`);
    return {
      waitForService: () => Promise.resolve(true),
      sendRequest: (request, callback) => {
        const message = structuredClone(request) as ComputeIkRequestMessage;
        this.requests.push(message);
        const answer = this.#answer(message);
        if (!answer) return;
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          const extra = { finger_joint: 0.01 };
          const joints: Record<string, number> = { ...extra, ...answer.joints };
          const names = Object.keys(joints).reverse();
          callback({
            solution: { joint_state: { name: names, position: names.map((n) => joints[n]) } },
            error_code: { val: answer.code },
          });
        }, this.#delayMs);
        this.#timers.add(timer);
      },
    };
  }

  /** Drops answers not yet sent (afterEach). */
  close(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}

/**
 * An answer function that behaves as move_group's kinematics service does
 * (github.com/moveit/moveit2, moveit_ros/move_group/src/default_capabilities/
 * kinematics_service_capability.cpp @ 065602a9): an unknown group →
 * INVALID_GROUP_NAME (-15); a pose frame it cannot transform →
 * FRAME_TRANSFORM_FAILURE (-21); otherwise the seed (`robot_state`) is laid
 * over the current state and the solver runs from there (here: the local
 * solver on the same chain, position-only when `positionOnly`, as
 * kinematics.yaml `position_only_ik` would); no solution → NO_IK_SOLUTION
 * (-31); a solution → SUCCESS (1) with the whole robot state.
 */
export function moveGroupLike(kin: ArmKinematics, options: { group: string; positionOnly: boolean }): ComputeIkAnswer {
  return (m) => {
    const r = m.ik_request;
    if (r.group_name !== options.group) return { code: -15 };
    if (r.pose_stamped.header.frame_id !== kin.chain.baseLink && r.pose_stamped.header.frame_id !== "")
      return { code: -21 };
    const seed = kin.jointNames.map(
      (n) => r.robot_state.joint_state.position[r.robot_state.joint_state.name.indexOf(n)] ?? 0,
    );
    const { position: p, orientation: o } = r.pose_stamped.pose;
    const orientation = options.positionOnly ? undefined : fromPositionQuaternion([p.x, p.y, p.z], o);
    const solved = solveIk(kin.chain, { position: [p.x, p.y, p.z], orientation }, seed);
    if (!solved.ok) return { code: -31 };
    return { code: 1, joints: Object.fromEntries(kin.jointNames.map((n, k) => [n, solved.q[k] ?? 0])) };
  };
}
