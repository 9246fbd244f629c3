import type { ArmConfig } from "../../config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../../config/actuators.js";
import { plannedMotionSeconds } from "../../motion/plannedMotionSeconds.js";
import type { ArgIssue } from "../../validation/formatIssues.js";
import type { MotionPlan } from "../../motion/MotionPlan.js";
import type { MotionTool } from "../toolContract/ToolDefinition.js";
import { motionIssues } from "../../transport/motionProblem.js";
import type { ArmStatus } from "../../transport/Transport.js";
import type { WireNumbers } from "../../transport/WireNumbers.js";

export interface PlanAdmissionInput {
  readonly tool: MotionTool;
  readonly plan: MotionPlan;
  readonly config: ArmConfig;
  /** The arm's newest status: where each axis starts from. */
  readonly status: ArmStatus | undefined;
  /** How the transport carries numbers (Transport.wire); float64 when omitted. */
  readonly wire?: WireNumbers | undefined;
}

/**
 * The one place a planned motion can be refused before its intent is
 * recorded: after `tool.plan(...)`, before anything is written or sent. Every
 * check here judges the plan as the arm will receive it, whatever tool made
 * it (arguments a model typed, a named pose, an inverse-kinematics solution):
 *
 * - the transports' own rule set (motionIssues): every target names a known
 *   axis and lies within its limits, compared as the transport's wire carries
 *   numbers (float32 on the serial link, whole counts on a servo bus, float64
 *   on ROS 2); the speed is at least `limits.min_speed` and survives the wire;
 * - the motion can settle: its duration (plannedMotionSeconds) is within the
 *   tool's timeout plus `observe.max_ms`, the longest the bridge watches a
 *   motion in progress. A longer plan could only end `unknown`.
 *
 * Returns the issues; none means admitted. Further checks (a workspace
 * envelope, say) join here.
 */
export function admitPlan(input: PlanAdmissionInput): ArgIssue[] {
  const { plan, config, tool } = input;
  const actuators = new Map<string, Actuator>(actuatorsOf(config).map((a) => [a.name, a]));
  const issues: ArgIssue[] = motionIssues(plan, (axis) => actuators.get(axis), {
    wire: input.wire,
    minSpeed: config.limits.minSpeed,
  });
  if (issues.length > 0) return issues;

  const speed = plan.speed;
  const positions = input.status
    ? Object.fromEntries(Object.entries(input.status.axes).map(([n, s]) => [n, s.position]))
    : undefined;
  const estimate = plannedMotionSeconds(plan.targets, speed, actuators, positions);
  const budgetMs = tool.timeoutMs + config.observe.maxMs;
  const durationMs = Math.ceil(estimate.seconds * 1000);
  if (durationMs > budgetMs) {
    const assumed =
      estimate.assumedFarthest.length > 0
        ? ` (no reported position for ${estimate.assumedFarthest.join(", ")}: timed from the farthest limit)`
        : "";
    issues.push({
      path: "plan.speed",
      code: "too_slow",
      message:
        `the motion would take ${(durationMs / 1000).toFixed(1)} s (${durationMs} ms) at speed ${speed}${assumed}, longer than ${tool.name}'s timeout ` +
        `(${tool.timeoutMs} ms) plus observe.max_ms (${config.observe.maxMs} ms) = ${budgetMs} ms, so its outcome could never be confirmed; use a higher speed`,
    });
  }
  return issues;
}
