import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";
import { ACTION_VIEW } from "./ActionView.js";
import { APPROVAL_VIEW, DECIDED_APPROVAL_VIEW } from "./ApprovalView.js";
import { LINK_LOSS_VIEW } from "./ArmStateView.js";
import { CALL_RESULT_VIEW } from "./CallResultView.js";
import { CLIENT_VIEW } from "./ClientView.js";
import { HALT_VIEW } from "./HaltView.js";

/** Every event about one call names it, its tool, and who sent it (null when the caller said nothing). */
const call = { callId: z.string(), tool: z.string(), client: z.nullable(CLIENT_VIEW) };

/** The arm's pace (Transport.pace): how fast it runs a motion against its plan; paused at speed scaling 0. */
export const MOTION_PACE_VIEW = z.strictObject({
  factor: z.number(),
  paused: z.boolean(),
  speedScaling: z.optional(z.number()),
  source: z.string(),
  stampMs: z.number(),
});

/** The SSE `executor` event: what the executor reports as calls move along, one variant per `type`. */
export const EXECUTOR_EVENT_VIEW = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("queued"), ...call, resources: z.array(z.string()) }),
  z.strictObject({
    type: z.literal("started"),
    ...call,
    actionId: z.string(),
    resources: z.array(z.string()),
    budgetMs: z.number(),
  }),
  z.strictObject({ type: z.literal("timed_out"), ...call, actionId: z.string() }),
  z.strictObject({ type: z.literal("paced"), ...call, actionId: z.string(), pace: MOTION_PACE_VIEW }),
  z.strictObject({ type: z.literal("settled"), ...call, result: CALL_RESULT_VIEW, durationMs: z.number() }),
  z.strictObject({ type: z.literal("action_resolved"), action: ACTION_VIEW }),
  z.strictObject({ type: z.literal("approval_requested"), ...call, approval: APPROVAL_VIEW }),
  z.strictObject({ type: z.literal("approval_resolved"), ...call, approval: DECIDED_APPROVAL_VIEW }),
  z.strictObject({ type: z.literal("halted"), halt: HALT_VIEW }),
  z.strictObject({ type: z.literal("halt_released"), halts: z.array(HALT_VIEW) }),
  /** The arm answers again after a lost link or a restart: what it went through, the unknown actions looked at again (their settlements follow as action_resolved). */
  z.strictObject({
    type: z.literal("link_returned"),
    loss: LINK_LOSS_VIEW,
    incarnation: z.optional(z.string()),
    reobserving: z.array(z.string()),
  }),
]);
export type ExecutorEventView = WireOf<typeof EXECUTOR_EVENT_VIEW>;
