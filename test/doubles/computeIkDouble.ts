import type { RclServiceClient } from "../../src/kinematics/moveitComputeIk.js";

/** What the double answers a request with; `undefined` never answers (a move_group that hangs). */
export type ComputeIkAnswer = (request: ComputeIkRequestMessage) => { joints?: Record<string, number>; code: number } | undefined;

/** The moveit_msgs/srv/GetPositionIK request as the bridge sends it (the fields it sets). */
export interface ComputeIkRequestMessage {
  ik_request: {
    group_name: string;
    robot_state: { joint_state: { name: string[]; position: number[] } };
    avoid_collisions: boolean;
    ik_link_name: string;
    pose_stamped: { header: { frame_id: string }; pose: { position: { x: number; y: number; z: number }; orientation: { x: number; y: number; z: number; w: number } } };
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
  readonly requests: ComputeIkRequestMessage[] = [];
  readonly #answer: ComputeIkAnswer;
  readonly #delayMs: number;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(answer: ComputeIkAnswer, options: { delayMs?: number } = {}) {
    this.#answer = answer;
    this.#delayMs = options.delayMs ?? 5;
  }

  createClient(typeClass: string, serviceName: string): RclServiceClient {
    if (typeClass !== "moveit_msgs/srv/GetPositionIK" || serviceName !== "/compute_ik") throw new Error(`no such service ${serviceName} (${typeClass})`);
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
          callback({ solution: { joint_state: { name: names, position: names.map((n) => joints[n]) } }, error_code: { val: answer.code } });
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
