import type { ArmConfig } from "../config/ArmConfig.js";
import { actuatorsOf, type Actuator } from "../config/actuators.js";
import { plannedMotionSeconds } from "../motion/plannedMotionSeconds.js";
import type { ArgIssue } from "../validation/formatIssues.js";
import type { MotionPlan } from "../motion/MotionPlan.js";
import type { MotionTool } from "./ToolDefinition.js";
import type { ArmStatus } from "../transport/Transport.js";

export interface PlanAdmissionInput {
  readonly tool: MotionTool;
  readonly plan: MotionPlan;
  readonly config: ArmConfig;
  /** The arm's newest status: where each axis starts from. */
  readonly status: ArmStatus | undefined;
}

/**
 * The one place a planned motion can be refused before its intent is
 * recorded: after `tool.plan(...)`, before anything is written or sent. Every
 * check here judges the plan as the arm will receive it, whatever tool made
 * it (arguments a model typed, a named pose, an inverse-kinematics solution):
 *
 * - every target names a known axis and lies within its limits, compared at
 *   the precision the wire carries (float32 on the serial link, where the
 *   device compares the float32 target with its float32 limits);
 * - the speed is at least `limits.min_speed` and survives as a float32;
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
  const issues: ArgIssue[] = [];
  const axes = Object.keys(plan.targets);
  if (axes.length === 0) issues.push({ path: "plan.targets", code: "empty_plan", message: "the plan moves no axis" });
  for (const axis of axes) {
    const value = plan.targets[axis];
    const a = actuators.get(axis);
    const path = `plan.targets.${axis}`;
    if (!a) {
      issues.push({ path, code: "unknown_axis", message: `the arm has no axis ${axis}` });
    } else if (typeof value !== "number" || !Number.isFinite(value) || !Number.isFinite(Math.fround(value))) {
      issues.push({ path, code: "not_finite", message: `target ${String(value)} is not a finite number` });
    } else if (value < a.min || value > a.max || Math.fround(value) < Math.fround(a.min) || Math.fround(value) > Math.fround(a.max)) {
      issues.push({ path, code: "outside_limits", message: `target ${value} is outside [${a.min}, ${a.max}]` });
    }
  }
  const speed = plan.speed;
  const minSpeed = config.limits.minSpeed;
  if (typeof speed !== "number" || !Number.isFinite(speed) || speed > 1 || speed < minSpeed || !(Math.fround(speed) > 0)) {
    issues.push({ path: "plan.speed", code: "speed_out_of_range", message: `speed ${String(speed)} is not in [${minSpeed}, 1] (limits.min_speed)` });
  }
  if (issues.length > 0) return issues;

  const positions = input.status ? Object.fromEntries(Object.entries(input.status.axes).map(([n, s]) => [n, s.position])) : undefined;
  const estimate = plannedMotionSeconds(plan.targets, speed, actuators, positions);
  const budgetMs = tool.timeoutMs + config.observe.maxMs;
  const durationMs = Math.ceil(estimate.seconds * 1000);
  if (durationMs > budgetMs) {
    const assumed = estimate.assumedFarthest.length > 0 ? ` (no reported position for ${estimate.assumedFarthest.join(", ")}: timed from the farthest limit)` : "";
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
