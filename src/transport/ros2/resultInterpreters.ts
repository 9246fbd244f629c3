import type { GoalRun, GoalServer, ResultInterpreter } from "./GoalRun.js";
import { gripperOutcome, type GripperBehaviour } from "./gripperOutcome.js";
import { gripperStroke, gripperToController } from "./gripperMapping.js";
import type { FollowJointTrajectoryFeedback, FollowJointTrajectoryResult, GripperResult } from "./rclTypes.js";
import type { GripperSetup } from "./resolveRos2Setup.js";
import { trajectoryOutcome } from "./trajectoryOutcome.js";

export interface InterpreterContext {
  readonly gripper: GripperSetup | undefined;
  /** The gripper semantics in force (RosFacts), `gripper_command` until known. */
  readonly behaviour: GripperBehaviour;
  readonly graspEpsilonOuter: number;
  /** tolerances.gripper, on armbridge's 0..1 scale. */
  readonly gripperTolerance: number;
  /** Where the motion starts and where it goes, on armbridge's scale (gripper 0..1). */
  readonly start: Readonly<Record<string, number>>;
  readonly targets: Readonly<Record<string, number>>;
}

/** How a run on `server` turns its status and result into an outcome. */
export function interpreterFor(server: GoalServer, ctx: InterpreterContext): ResultInterpreter {
  if (server.kind === "trajectory") {
    return (status, result, run: GoalRun) =>
      trajectoryOutcome(
        status,
        result as Partial<FollowJointTrajectoryResult>,
        run.actionName,
        run.lastFeedback as FollowJointTrajectoryFeedback | undefined,
      );
  }
  const g = ctx.gripper;
  return (status, result, run: GoalRun) => {
    if (!g) return { state: "faulted", detail: `${run.actionName}: no gripper configured` };
    const target = ctx.targets[g.axis] ?? 0;
    return gripperOutcome(
      status,
      result as Partial<GripperResult>,
      {
        behaviour: ctx.behaviour,
        gripper: g,
        start: gripperToController(g, ctx.start[g.axis] ?? target),
        target: gripperToController(g, target),
        tolerance: ctx.gripperTolerance * gripperStroke(g),
        graspEpsilonOuter: ctx.graspEpsilonOuter,
      },
      run.actionName,
    );
  };
}
