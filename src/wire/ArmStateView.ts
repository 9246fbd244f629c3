import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";
import { ACTION_VIEW } from "./ActionView.js";
import { HALT_VIEW } from "./HaltView.js";
import { ENVELOPE_STATE_VIEW } from "./EnvelopeView.js";
import { CLIENT_VIEW } from "./ClientView.js";
import { PRESENCE_VIEW } from "./PresenceView.js";
import { SERVO_HEALTH_VIEW } from "./ServoHealthView.js";

/** A motion sent to the arm and not settled yet, and who sent it: what is moving the arm now. */
export const IN_FLIGHT_VIEW = z.strictObject({
  action_id: z.string(),
  call_id: z.string(),
  tool: z.string(),
  resources: z.array(z.string()),
  /** The absolute targets sent. */
  targets: z.record(z.string(), z.number()),
  client: z.nullable(CLIENT_VIEW),
  /** Epoch ms the intent was recorded (just before the command left). */
  started_at: z.number(),
});
export type InFlightView = WireOf<typeof IN_FLIGHT_VIEW>;

/**
 * The newest loss of the arm link (or restart of the arm behind a link that
 * stayed up) and how it came back; kept after the return.
 */
export const LINK_LOSS_VIEW = z.strictObject({
  /** Epoch ms the loss (or restart) was noticed. */
  lost_at: z.number(),
  /** What was noticed, in words for an operator. */
  reason: z.string(),
  /** Action ids of the motions in flight at that moment: never re-sent, settled by observation. */
  in_flight: z.array(z.string()),
  /** Epoch ms the arm answered again; absent while it has not. */
  returned_at: z.optional(z.number()),
  /** Reconnection attempts it took (0 for a restart behind a link that stayed up). */
  attempts: z.number(),
  /** The arm came back as a new incarnation (power loss, new boot, restarted controller). */
  incarnation_changed: z.optional(z.boolean()),
  /** What the return found, in words for an operator. */
  returned_detail: z.optional(z.string()),
});
export type LinkLossView = WireOf<typeof LINK_LOSS_VIEW>;

/** The arm connection as the bridge sees it (connected / reconnecting since … attempt N, next try at … / down). */
export const LINK_VIEW = z.strictObject({
  state: z.enum(["connected", "reconnecting", "down"]),
  /** Epoch ms the link entered this state. */
  since: z.number(),
  /** Reconnection attempt under way or just failed (1, 2, …), while `reconnecting`. */
  attempt: z.optional(z.number()),
  /** Epoch ms of the newest status received from the arm, if any ever was. */
  last_status_at: z.optional(z.number()),
  /** Why, in words for an operator. */
  detail: z.optional(z.string()),
  /** Epoch ms of the next reconnection attempt, while waiting between attempts. */
  next_attempt_at: z.optional(z.number()),
  /** The coded reason the newest attempt was refused (ARMB_ERR_DEVICE_REPLACED: another device answered, never driven). */
  error_code: z.optional(z.string()),
  /** The arm's incarnation now, when the transport names one; a new one means the arm lost its memory of what was in flight. */
  incarnation: z.optional(z.string()),
  last_loss: z.optional(LINK_LOSS_VIEW),
});
export type LinkView = WireOf<typeof LINK_VIEW>;

/** GET /v1/state and the SSE `state` event. */
export const ARM_STATE_VIEW = z.strictObject({
  /** While it is not `connected`, `pose` is the last one received, `link.last_status_at` old: not "now". */
  link: LINK_VIEW,
  /** Axis → position (rad; gripper 0..1), from the newest status. Empty before the first. */
  pose: z.record(z.string(), z.number()),
  moving: z.array(z.string()),
  /** True when there is no status yet or the newest is older than the config's stale_after_ms. */
  stale: z.boolean(),
  age_ms: z.nullable(z.number()),
  faults: z.array(z.string()),
  /** Each fault with what clears it (confirming an action never does). */
  fault_help: z.array(z.strictObject({ fault: z.string(), clears: z.string() })),
  /** Resource → the unknown actions that quarantine it. */
  quarantined: z.record(z.string(), z.array(z.string())),
  /** Calls waiting for an operator's approval (GET /v1/approvals lists them). */
  approvals_pending: z.number(),
  /** True while the bridge is latched by a halt: every motion is refused until an operator releases it. */
  halted: z.boolean(),
  /** The newest open halt (who, when, whether the arm confirmed it), or null. */
  halt: z.nullable(HALT_VIEW),
  /** Hold-to-run (operator_presence): who holds it or what is missing; absent on a bridge without it. */
  presence: z.optional(PRESENCE_VIEW),
  /** Motions under way now (ledger rows still `started`), oldest first, each with who sent it. */
  in_flight: z.array(IN_FLIGHT_VIEW),
  /** Actions waiting for an operator, oldest first, each with its `confirm_options`. */
  pending_unknowns: z.array(ACTION_VIEW),
  /** The intent ledger: its file, and `lost` once that file was deleted or replaced under the running bridge. */
  ledger: z.strictObject({
    path: z.string(),
    lost: z.nullable(z.strictObject({ code: z.string(), message: z.string(), detected_at: z.number() })),
  }),
  /** The safety envelope now: link volumes where the arm is, the newest refusal, the motion rate. */
  envelope: ENVELOPE_STATE_VIEW,
  /**
   * Each bus servo's temperature, voltage, load and hardware errors against
   * its own limits, with warnings and alarms. Absent where the arm's
   * transport has no such data (serial firmware, ROS 2): absent, not zeros.
   */
  servo_health: z.optional(z.array(SERVO_HEALTH_VIEW)),
});
export type ArmStateView = WireOf<typeof ARM_STATE_VIEW>;
