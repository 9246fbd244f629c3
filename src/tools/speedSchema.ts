import { z } from "zod";
import type { ArmConfig } from "../config/ArmConfig.js";

/** A motion's speed argument: a fraction of each axis's max velocity, from `limits.min_speed` to 1. */
export function speedSchema(config: ArmConfig) {
  const min = config.limits.minSpeed;
  return z
    .number()
    .min(min)
    .max(1)
    .optional()
    .describe(`Fraction of each joint's maximum velocity, in [${min}, 1]. Default 0.5.`);
}

/** What a motion tool's description tells the model about its results. */
export const MOTION_RESULT_GUIDE =
  "Blocks until the motion ends. Results: status done (target reached), failed (nothing moved; you may re-run), " +
  "unknown (do NOT re-run; a person must confirm), blocked (a joint awaits an operator's confirmation), " +
  "rejected (fix the arguments), skipped (no time left; nothing was sent).";
