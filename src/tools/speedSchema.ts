import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";

/** The speed a motion runs at when its call names none. */
export const DEFAULT_SPEED = 0.5;

/**
 * Every motion tool's `speed` argument: a fraction of each axis's max
 * velocity, from `limits.min_speed` to 1 — the range plan admission accepts,
 * so a speed it would refuse is refused here, at argument checking
 * (ARMB_ERR_ARGS_INVALID, path `speed`), the same way by every tool. Left
 * optional rather than defaulted in the schema: the parsed arguments are what
 * a call id's hash and the ledger keep, and a call that names no speed must
 * hash as it always has.
 */
export function speedSchema(config: ArmConfig) {
  const min = config.limits.minSpeed;
  return z
    .number()
    .min(min)
    .max(1)
    .optional()
    .describe(`Fraction of each joint's maximum velocity, in [${min}, 1]. Default ${DEFAULT_SPEED}.`);
}

/** The speed a call asked for, or DEFAULT_SPEED. */
export function speedOf(args: { readonly speed?: number | undefined }): number {
  return args.speed ?? DEFAULT_SPEED;
}

/** What a motion tool's description tells the model about its results. */
export const MOTION_RESULT_GUIDE =
  "Blocks until the motion ends. Results: status done (target reached), failed (nothing moved; you may re-run), " +
  "stopped (it moved and stopped part-way, at the pose given, short of its target: plan the next motion from that pose; after a halt, only once an operator released it), " +
  "unknown (do NOT re-run; a person must confirm), blocked (a joint awaits an operator's confirmation, or the bridge is halted until an operator releases it), " +
  "rejected (fix the arguments), skipped (no time left; nothing was sent).";
