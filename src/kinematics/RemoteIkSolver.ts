import type { ArmConfig } from "../config/ArmConfig.js";
import type { ArmKinematics } from "./armKinematics.js";
import { computeIkWithMoveIt, type ComputeIkOutcome, type IkServiceClient } from "./moveitComputeIk.js";
import type { Quaternion } from "./rigidTransform.js";

/** An IK answer from outside the bridge (`kinematics: moveit`), asked per Cartesian call. */
export interface RemoteIkSolver {
  /** Names it in refusals: "MoveIt compute_ik (/compute_ik, group arm)". */
  readonly label: string;
  /** Position and orientation in the chain's base frame; `seed` the current joints in chain order. */
  solve(
    request: {
      readonly position: readonly [number, number, number];
      readonly orientation: Quaternion;
      readonly seed: Float64Array;
    },
    signal?: AbortSignal,
  ): Promise<ComputeIkOutcome>;
}

/**
 * `kinematics: moveit`: every Cartesian call asks move_group's compute_ik.
 * The pose goes in the chain's base frame (MoveIt transforms it to its model
 * frame, FRAME_TRANSFORM_FAILURE if it cannot), `ik_link_name` is the tip
 * link, the seed is the arm's current joints (move_group overlays
 * `robot_state` on its current state and starts the solver there), and the
 * search time is `moveit.solve_timeout_ms`, in whole seconds (move_group passes
 * only `timeout.sec`; 0 means the group's default) — github.com/moveit/moveit2,
 * moveit_ros/move_group/src/default_capabilities/kinematics_service_capability.cpp
 * @ 065602a9, computeIK / computeIKService.
 */
export function moveitIkSolver(
  client: IkServiceClient,
  moveit: NonNullable<ArmConfig["moveit"]>,
  kin: ArmKinematics,
): RemoteIkSolver {
  return {
    label: `MoveIt compute_ik (${moveit.service}, group ${moveit.group})`,
    solve: (request, signal) =>
      computeIkWithMoveIt(
        client,
        {
          group: moveit.group,
          frame: kin.chain.baseLink,
          tipLink: kin.chain.tipLink,
          jointNames: kin.jointNames,
          seed: request.seed,
          position: request.position,
          orientation: request.orientation,
          solveTimeoutMs: moveit.solveTimeoutMs,
          avoidCollisions: moveit.avoidCollisions,
        },
        { timeoutMs: moveit.callTimeoutMs, signal },
      ),
  };
}
