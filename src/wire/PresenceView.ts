import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/**
 * Hold-to-run as it stands (config `operator_presence`): GET /v1/presence,
 * the answer to a console's heartbeat (POST /v1/presence), and `presence` in
 * GET /v1/state and the SSE `state` event.
 */
export const PRESENCE_VIEW = z.strictObject({
  /** False on a bridge without `operator_presence.required`: motion needs no console, and the fields below are null/empty. */
  required: z.boolean(),
  /** A console counts as gone this long after its last heartbeat (ms). */
  timeout_ms: z.nullable(z.number()),
  /** The named operator whose console heartbeats (the newest), or null. */
  operator: z.nullable(z.string()),
  /** Why motion is refused now (ARMB_ERR_OPERATOR_ABSENT's words), or null when an operator is present. */
  missing: z.nullable(z.string()),
  /**
   * The consoles heartbeating now (at most MAX_PRESENCE_CONSOLES). `session` is a
   * console's public tag, a digest of the id it beats with: the id itself is
   * never shown, so knowing a console's tag does not let anyone end or rename it.
   */
  consoles: z.array(
    z.strictObject({ session: z.string(), operator: z.nullable(z.string()), last_beat_ms_ago: z.number() }),
  ),
  /** Only in the answer to a heartbeat: the tag the beating console is listed under, so it can find itself in `consoles`. */
  yours: z.optional(z.string()),
});
export type PresenceView = WireOf<typeof PRESENCE_VIEW>;
