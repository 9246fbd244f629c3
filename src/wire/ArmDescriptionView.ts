import * as z from "zod/mini";
import { ENVELOPE_DESCRIPTION_VIEW } from "./EnvelopeView.js";
import type { WireOf } from "./WireOf.js";

/** One axis as the console draws it: the gripper on its 0 (closed) .. 1 (open) scale. */
export const ARM_AXIS_VIEW = z.strictObject({
  name: z.string(),
  kind: z.enum(["joint", "gripper"]),
  min: z.number(),
  max: z.number(),
  home: z.number(),
  /** "rad" for joints; the gripper's scale has no unit. */
  unit: z.enum(["rad", "fraction"]),
  /** |target - reported| at or below this counts as reached (config tolerances): the console's unknown card judges "reached" by it. */
  tolerance: z.number(),
});
export type ArmAxisView = WireOf<typeof ARM_AXIS_VIEW>;

/** GET /v1/arm: what the console needs to draw the arm (limits change only with the config, so it is read once). */
export const ARM_DESCRIPTION_VIEW = z.strictObject({
  name: z.string(),
  /** Every axis in config order; the gripper last. */
  axes: z.array(ARM_AXIS_VIEW),
  named_poses: z.record(z.string(), z.record(z.string(), z.number())),
  /** A status older than this is stale (the config's stale_after_ms). */
  stale_after_ms: z.number(),
  /** The safety envelope's parts, for a 3D view; null without kinematics. */
  envelope: z.nullable(ENVELOPE_DESCRIPTION_VIEW),
});
export type ArmDescriptionView = WireOf<typeof ARM_DESCRIPTION_VIEW>;
