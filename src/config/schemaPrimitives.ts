import { z } from "zod";
import { MAX_SERVO_ID } from "./servoBusLimits.js";

/**
 * Names index objects all over the bridge (positions, poses, statuses), and a
 * name inherited from Object.prototype (`constructor`, `toString`,
 * `__proto__`…) would read as present on every one of them — or vanish, as a
 * `__proto__` key does. Such names are refused here, once, rather than guarded
 * at every lookup.
 */
export const BUILT_IN_NAME = "this name is a built-in property of every JavaScript object; choose another";

export const name = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, "a name is a letter then up to 63 letters, digits or underscores")
  .refine((n) => !(n in Object.prototype), { message: BUILT_IN_NAME });

/**
 * A record keyed by names. zod's record skips a `__proto__` key without a
 * word (the pose would silently vanish), so the raw keys are checked first.
 */
export function namedRecord<V extends z.ZodType>(value: V) {
  return z
    .unknown()
    .superRefine((raw, ctx) => {
      if (raw === null || typeof raw !== "object") return;
      for (const key of Object.keys(raw))
        if (key in Object.prototype) ctx.addIssue({ code: "custom", path: [key], message: BUILT_IN_NAME });
    })
    .pipe(z.record(name, value));
}

/** The largest finite float32: limits and speeds travel as float32 on the serial wire. */
const FLOAT32_MAX = 3.4028234663852886e38;
export const finite = z
  .number()
  .finite()
  .refine((v) => Math.abs(v) <= FLOAT32_MAX, {
    message: "must be representable as a finite float32 (the serial wire carries float32)",
  });
export const positive = finite.positive().refine((v) => Math.fround(v) > 0, {
  message: "is too small to survive as a float32 (it would become 0 on the serial wire)",
});

/** A servo id: the widest any protocol allows here; the protocol's own range is checked with the bus (servoBusLimits). */
export const servoId = z.number().int().min(0).max(MAX_SERVO_ID);
export const countsPerRev = z
  .number()
  .int()
  .positive()
  .max(1 << 24);

export const point3 = z.tuple([finite, finite, finite]);
