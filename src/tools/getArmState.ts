import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";
import { endEffectorOf } from "../kinematics/endEffectorOf.js";
import { latchWords, whoHalted } from "../ledger/HaltRow.js";
import { poseOf } from "../transport/poseOf.js";
import { defineReadTool, type HaltTool, type ReadTool } from "../executor/toolContract/ToolDefinition.js";

/** `get_arm_state {}`: pose, moving axes, staleness, actions awaiting an operator. Read-only. */
export function getArmState(config: ArmConfig): ReadTool | HaltTool {
  return defineReadTool({
    name: "get_arm_state",
    description:
      "Read the arm's reported pose (radians; gripper 0..1), which axes are moving, faults, actions awaiting an operator's confirmation, " +
      "and whether the bridge is halted (by whom, since when: every motion is refused until an operator releases it). " +
      "The pose is labelled stale when it is old. With kinematics configured, also end_effector: the tool tip's position (metres) and orientation (roll/pitch/yaw radians and a quaternion) in the arm's base frame (z up). Read-only.",
    args: z.object({}).strict(),
    blocking: false,
    kind: "read",
    timeoutMs: config.timeoutsMs.getArmState,
    run: async (_args, ctx) => {
      const status = ctx.latestStatus();
      const quarantined = ctx.quarantined();
      const pending = [...new Set([...quarantined.values()].flat())].map((id) => {
        const row = ctx.action(id);
        return { action_id: id, tool: row?.tool, resources: row?.resources ?? [] };
      });
      const ageMs = status ? Math.max(0, ctx.now() - status.stampMs) : undefined;
      const stale = ageMs === undefined || ageMs > ctx.config.staleAfterMs;
      const moving = status
        ? Object.entries(status.axes)
            .filter(([, a]) => a.moving)
            .map(([n]) => n)
        : [];
      const pose = poseOf(status);
      const halt = ctx.halted();
      // The latch speaks first: it decides whether any motion can run at all.
      const latched = halt
        ? `${latchWords({ ...halt, who: whoHalted(halt) })} Do not send motion; tell the user. `
        : "";
      const message =
        latched +
        (!status
          ? "No status from the arm yet: the pose is unknown."
          : `${stale ? `STALE pose (${ageMs} ms old; do not rely on it). ` : ""}${moving.length ? `Moving: ${moving.join(", ")}. ` : "Nothing is moving. "}` +
            (pending.length
              ? `${pending.length} action(s) await an operator's confirmation: ${pending.map((p) => p.action_id).join(", ")}.`
              : "No action awaits confirmation."));
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
          halted: halt !== undefined,
          halt: halt
            ? {
                halt_id: halt.haltId,
                by: whoHalted(halt),
                since: new Date(halt.haltedAt).toISOString(),
                since_ms: halt.haltedAt,
                note: halt.note ?? null,
                confirmed: halt.confirmed ?? null,
              }
            : null,
          ...endEffectorOf(ctx.config, pose),
        },
      };
    },
  });
}
