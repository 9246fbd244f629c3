import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { actuatorsOf, resourcesFor } from "../config/actuators.js";
import { armKinematicsOf } from "../kinematics/armKinematics.js";
import { endEffectorOf } from "../kinematics/endEffectorOf.js";
import { poseOf } from "../ledger/ActionRow.js";
import { moveToPointTool } from "./moveToPoint.js";
import { moveToPoseTool } from "./moveToPose.js";
import { observeTargets } from "./observeTargets.js";
import { defineMotionTool, defineReadTool, type ToolDefinition } from "./ToolDefinition.js";
import { ToolRegistry } from "./ToolRegistry.js";

const RESULT_GUIDE =
  "Blocks until the motion ends. Results: status done (target reached), failed (nothing moved; you may re-run), " +
  "unknown (do NOT re-run; a person must confirm), blocked (a joint awaits an operator's confirmation), " +
  "rejected (fix the arguments), skipped (no time left; nothing was sent).";

const speedSchema = z
  .number()
  .gt(0)
  .lte(1)
  .optional()
  .describe("Fraction of each joint's maximum velocity, in (0, 1]. Default 0.5.");

/** The default tool set (these argument shapes are a contract other tools rely on). */
export function createDefaultTools(config: ArmConfig): ToolRegistry {
  const joints = config.arm.joints;
  const gripper = config.arm.gripper;
  const jointNames = joints.map((j) => j.name);

  const positionsShape: Record<string, z.ZodOptional<z.ZodNumber>> = {};
  for (const j of joints) {
    positionsShape[j.name] = z
      .number()
      .min(j.min)
      .max(j.max)
      .optional()
      .describe(`Absolute target for ${j.name} in radians, within [${j.min}, ${j.max}].`);
  }
  const moveJointsArgs = z
    .object({
      positions: z
        .strictObject(positionsShape)
        .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "name at least one joint" })
        .describe(`Absolute joint targets in radians, by joint name. Joints: ${jointNames.join(", ")}.`),
      speed: speedSchema,
    })
    .strict();

  const poseNames = Object.keys(config.arm.namedPoses);
  const namedPoseArgs = z
    .object({
      pose: (poseNames.length > 0 ? z.enum(poseNames as [string, ...string[]]) : z.never()).describe(`One of: ${poseNames.join(", ") || "(none configured)"}.`),
      speed: speedSchema,
    })
    .strict();

  const definedPositions = (p: Record<string, number | undefined>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(p)) if (v !== undefined) out[k] = v;
    return out;
  };

  const registry = new ToolRegistry();

  registry.register(
    defineMotionTool({
      name: "move_joints",
      description: `Move one or more arm joints to absolute target angles (radians) and wait until they get there. ${RESULT_GUIDE}`,
      args: moveJointsArgs,
      blocking: true,
      resources: (args) => resourcesFor(config, Object.keys(definedPositions(args.positions))),
      timeoutMs: config.timeoutsMs.moveJoints,
      onTimeout: "observe",
      plan: (args) => ({ targets: definedPositions(args.positions), speed: args.speed ?? 0.5 }),
      observe: observeTargets,
    }),
  );

  registry.register(
    defineMotionTool({
      name: "move_to_named_pose",
      description: `Move the arm's joints to a configured named pose (${poseNames.join(", ")}) and wait until it gets there. ${RESULT_GUIDE}`,
      args: namedPoseArgs,
      blocking: true,
      resources: (args) => resourcesFor(config, Object.keys(config.arm.namedPoses[args.pose] ?? {})),
      timeoutMs: config.timeoutsMs.moveToNamedPose,
      onTimeout: "observe",
      plan: (args) => ({ targets: { ...(config.arm.namedPoses[args.pose] ?? {}) }, speed: args.speed ?? 0.5 }),
      observe: observeTargets,
    }),
  );

  if (gripper) {
    registry.register(
      defineMotionTool({
        name: "set_gripper",
        description: `Open or close the gripper: position 0 is fully closed, 1 fully open. Waits until it gets there. ${RESULT_GUIDE}`,
        args: z
          .object({
            position: z.number().min(0).max(1).describe("Gripper opening, 0 (closed) to 1 (open)."),
            speed: speedSchema,
          })
          .strict(),
        blocking: true,
        resources: () => resourcesFor(config, [gripper.name]),
        timeoutMs: config.timeoutsMs.setGripper,
        onTimeout: "observe",
        plan: (args) => ({ targets: { [gripper.name]: args.position }, speed: args.speed ?? 0.5 }),
        observe: observeTargets,
      }),
    );
  }

  const kinematics = armKinematicsOf(config);
  if (kinematics) registry.register(moveToPointTool(config, kinematics));
  if (kinematics && kinematics.chain.dof >= 6) registry.register(moveToPoseTool(config, kinematics));

  registry.register(
    defineReadTool({
      name: "get_arm_state",
      description:
        "Read the arm's reported pose (radians; gripper 0..1), which axes are moving, faults, and actions awaiting an operator's confirmation. " +
        "With kinematics configured, also end_effector: the tool tip's position (metres) and orientation (roll/pitch/yaw radians and a quaternion) in the arm's base frame (z up). " +
        "The pose is labelled stale when it is old. Read-only.",
      args: z.object({}).strict(),
      blocking: false,
      kind: "read",
      timeoutMs: config.timeoutsMs.getArmState,
      run: async (_args, ctx) => {
        const status = ctx.transport.latestStatus();
        const quarantined = ctx.quarantined();
        const pending = [...new Set([...quarantined.values()].flat())].map((id) => {
          const row = ctx.ledger.get(id);
          return { action_id: id, tool: row?.tool, resources: row?.resources ?? [] };
        });
        const ageMs = status ? Math.max(0, ctx.now() - status.stampMs) : undefined;
        const stale = ageMs === undefined || ageMs > ctx.config.staleAfterMs;
        const moving = status ? Object.entries(status.axes).filter(([, a]) => a.moving).map(([n]) => n) : [];
        const pose = poseOf(status);
        const message = !status
          ? "No status from the arm yet: the pose is unknown."
          : `${stale ? `STALE pose (${ageMs} ms old; do not rely on it). ` : ""}${moving.length ? `Moving: ${moving.join(", ")}. ` : "Nothing is moving. "}` +
            (pending.length ? `${pending.length} action(s) await an operator's confirmation: ${pending.map((p) => p.action_id).join(", ")}.` : "No action awaits confirmation.");
        return {
          message,
          pose,
          data: {
            pose: pose ?? null,
            moving,
            stale,
            age_ms: ageMs ?? null,
            faults: status?.faults ?? [],
            pending_unknowns: pending,
            quarantined_resources: [...quarantined.keys()].sort(),
            ...endEffectorOf(ctx.config, pose),
          },
        };
      },
    }),
  );

  registry.register(
    defineReadTool({
      name: "get_action_status",
      description: "Look up an earlier action by its action_id in the intent ledger: its state (started, done, failed, unknown, confirmed_done, confirmed_not_done) and evidence. Read-only.",
      args: z.object({ action_id: z.string().min(1).max(128).describe("The action_id from an earlier result.") }).strict(),
      blocking: false,
      kind: "read",
      timeoutMs: config.timeoutsMs.getActionStatus,
      run: async (args, ctx) => {
        const row = ctx.ledger.get(args.action_id);
        if (!row) return { message: `No action with id ${args.action_id}.`, data: { found: false, action_id: args.action_id } };
        return {
          message: `Action ${row.actionId} (${row.tool}) is ${row.state}${row.operator ? `, confirmed by ${row.operator}` : ""}.`,
          data: {
            found: true,
            action_id: row.actionId,
            call_id: row.callId,
            tool: row.tool,
            args: row.args,
            state: row.state,
            timed_out: row.timedOut,
            settled_by: row.settledBy,
            resources: row.resources,
            evidence: row.evidence ?? null,
            operator: row.operator ?? null,
            created_at: row.createdAt,
            settled_at: row.settledAt ?? null,
          },
        };
      },
    }),
  );

  const axisNames = actuatorsOf(config).map((a) => a.name);
  registry.register(
    defineReadTool({
      name: "stop",
      description:
        "Halt motion now and hold position: the named joints, or every axis when none are named. Always allowed, never queued. " +
        "Returns the pose observed after halting. Interrupted motions end with status unknown and need an operator's confirmation.",
      args: z
        .object({
          joints: z
            .array(z.enum(axisNames as [string, ...string[]]))
            .min(1)
            .max(axisNames.length)
            .optional()
            .describe(`Axes to halt (${axisNames.join(", ")}); omit to halt everything.`),
        })
        .strict(),
      blocking: false,
      kind: "halt",
      timeoutMs: config.timeoutsMs.stop,
      run: async (args, ctx, signal) => {
        const halted = await ctx.transport.halt({ ...(args.joints ? { axes: args.joints } : {}), signal });
        const pose = poseOf(halted.status);
        const what = args.joints ? args.joints.join(", ") : "all axes";
        const message = halted.halted
          ? `Halted ${what}.${pose ? "" : " No pose was reported after the halt."}`
          : `The halt of ${what} was not confirmed by the arm${halted.error ? ` (${halted.error.message})` : ""}. Check the arm.`;
        return { message, pose, data: { halted: halted.halted, axes: args.joints ?? axisNames, pose: pose ?? null, error: halted.error?.toJSON() ?? null } };
      },
    }),
  );

  return registry;
}

export type { ToolDefinition };
