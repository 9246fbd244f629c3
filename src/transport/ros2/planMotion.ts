import type { ArmConfig } from "../../config/ArmConfig.js";
import type { Actuator } from "../../config/actuators.js";
import { ArmbridgeError } from "../../errors.js";
import type { ArmStatus, MotionCommand, MotionEnd } from "../Transport.js";
import { buildTrajectoryGoal, restToRestTime, type JointLimits } from "./buildTrajectoryGoal.js";
import type { GoalServer } from "./GoalRun.js";
import { buildGripperGoal } from "./gripperMapping.js";
import type { FrankaHandHoming } from "./FrankaHandHoming.js";
import { jointLimitMarginViolation } from "./jointLimitMargin.js";
import type { RclActionClient } from "./rclTypes.js";
import type { Ros2Setup } from "./resolveRos2Setup.js";
import type { ServerRegistry } from "./ServerRegistry.js";

export interface PlannedGoal {
  readonly server: GoalServer;
  readonly client: RclActionClient;
  readonly actionName: string;
  readonly goal: object;
  readonly durationS: number;
}

export type MotionPlan =
  | { readonly refused: MotionEnd }
  | { readonly goals: readonly PlannedGoal[]; readonly start: Readonly<Record<string, number>> };

export interface MotionPlanning {
  readonly config: ArmConfig;
  readonly setup: Ros2Setup;
  readonly servers: ServerRegistry;
  readonly actuators: ReadonlyMap<string, Actuator>;
  readonly limits: ReadonlyMap<string, JointLimits>;
  readonly now: () => number;
  readonly latest: () => ArmStatus | undefined;
  /** The Franka Hand's homing, when a failed command showed it is not homed. */
  readonly hand?: FrankaHandHoming;
}

/** `refused`: positive evidence that nothing was sent. */
export function refusal(
  actionId: string,
  reason: string,
  code: "ARMB_ERR_MOTION_REFUSED" | "ARMB_ERR_ROS_GOAL" = "ARMB_ERR_MOTION_REFUSED",
): MotionEnd {
  const error =
    code === "ARMB_ERR_ROS_GOAL"
      ? new ArmbridgeError(code, { action: actionId, reason })
      : new ArmbridgeError(code, { actionId, reason });
  return { kind: "refused", reason, error };
}

/**
 * One goal per server from the freshest /joint_states: every joint of a
 * controller named (the untouched ones held where they are), explicit goal
 * tolerances for position *and* velocity (JTC otherwise checks the goal
 * velocity against stopped_velocity_tolerance, 0.01 rad/s by default, and a
 * sensor's noise at rest aborts a correct goal: tolerances.hpp
 * get_segment_tolerances / check_state_tolerance_per_joint,
 * ros-controls/ros2_controllers jazzy @ ed360c97).
 */
export function planMotion(command: MotionCommand, p: MotionPlanning): MotionPlan {
  const id = command.actionId;
  const { setup, config } = p;
  const status = p.latest();
  if (!status || p.now() - status.stampMs > config.staleAfterMs) {
    return {
      refused: {
        kind: "refused",
        reason: `no fresh ${setup.options.jointStatesTopic} to hold the untouched joints at`,
        error: new ArmbridgeError("ARMB_ERR_TRANSPORT_NO_STATUS", { transport: "ros2" }),
      },
    };
  }
  const nearLimit = jointLimitMarginViolation(command.targets, p.actuators, setup.options.jointLimitMarginRad ?? 0);
  if (nearLimit) return { refused: refusal(id, nearLimit) };
  const start: Record<string, number> = {};
  for (const axis of Object.keys(command.targets)) {
    const pos = status.axes[axis]?.position;
    if (pos === undefined) return { refused: refusal(id, `${axis} is missing from ${setup.options.jointStatesTopic}`) };
    start[axis] = pos;
  }
  const goals: PlannedGoal[] = [];
  for (const server of p.servers.serversFor(Object.keys(command.targets))) {
    const client = p.servers.clientOf(server);
    if (!client) return { refused: refusal(id, "transport not opened") };
    const controller = p.servers.controllerOf(server);
    if (controller) {
      const current: Record<string, number> = {};
      for (const joint of controller.joints) {
        const pos = status.axes[joint]?.position;
        if (pos === undefined)
          return {
            refused: refusal(
              id,
              `joint ${joint} of ${controller.name} is missing from ${setup.options.jointStatesTopic}`,
            ),
          };
        current[joint] = pos;
      }
      const targets: Record<string, number> = {};
      for (const joint of controller.joints) {
        const t = command.targets[joint];
        if (t !== undefined) targets[joint] = t;
      }
      const plan = buildTrajectoryGoal({
        joints: controller.joints,
        targets,
        current,
        limits: p.limits,
        speed: command.speed,
        positionTolerance: config.tolerances.position,
        velocityTolerance: setup.options.goalVelocityTolerance,
        goalTimeToleranceS: setup.options.goalTimeToleranceS,
        minMotionS: setup.options.minMotionMs / 1000,
      });
      goals.push({ server, client, actionName: controller.actionName, goal: plan.goal, durationS: plan.durationS });
    } else if (setup.gripper) {
      const g = setup.gripper;
      const notHomed = p.hand?.refusal(status.axes[g.axis]?.position, config.tolerances.gripper);
      if (notHomed) return { refused: refusal(id, notHomed) };
      const target = command.targets[g.axis] ?? 0;
      const limits = p.limits.get(g.axis);
      // Gripper controllers move at their own speed; bound the wait by a stroke at the configured limits.
      const durationS = limits
        ? restToRestTime(Math.abs(target - (start[g.axis] ?? target)), limits.maxVelocity, limits.maxAcceleration)
        : 0;
      goals.push({
        server,
        client,
        actionName: g.actionName,
        goal: buildGripperGoal(g, target),
        durationS: Math.max(durationS, setup.options.minMotionMs / 1000),
      });
    }
  }
  return { goals, start };
}
