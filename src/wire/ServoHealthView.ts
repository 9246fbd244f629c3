import * as z from "zod/mini";
import type { WireOf } from "./WireOf.js";

/** What a servo's hardware-error bit means (Dynamixel Hardware_Error_Status, Feetech Status). */
export const HARDWARE_ERROR_KIND = z.enum([
  "input_voltage",
  "overheating",
  "overload",
  "overcurrent",
  "electrical_shock",
  "encoder",
]);

/** Something about one servo that needs the operator's eye: `alarm` (an error, or past a limit) or `warning` (near one). */
export const SERVO_ALERT_VIEW = z.strictObject({
  kind: z.enum(["hardware_error", "temperature", "voltage", "load"]),
  level: z.enum(["warning", "alarm"]),
  /** The hardware error, for `hardware_error`. */
  error: z.optional(HARDWARE_ERROR_KIND),
  /** What is wrong, naming the servo and its joint. */
  message: z.string(),
  /** What to do about it. */
  advice: z.string(),
});
export type ServoAlertView = WireOf<typeof SERVO_ALERT_VIEW>;

/**
 * One bus servo's condition as its own registers report it (`servo_health`
 * in GET /v1/state and the SSE `state` event). A reading not given yet is
 * absent, never 0. For the operator: it never admits or refuses a motion.
 */
export const SERVO_HEALTH_VIEW = z.strictObject({
  axis: z.string(),
  servo_id: z.number(),
  /** Epoch ms of the newest read of temperature and voltage. */
  read_at: z.optional(z.number()),
  temperature_c: z.optional(z.number()),
  /** The servo's own Temperature_Limit. */
  temperature_limit_c: z.optional(z.number()),
  voltage_v: z.optional(z.number()),
  /** The servo's own Min / Max_Voltage_Limit. */
  voltage_min_v: z.optional(z.number()),
  voltage_max_v: z.optional(z.number()),
  /** Signed effort: % of the maximum output (a load register) or of the servo's own Current_Limit (a current register). */
  load_pct: z.optional(z.number()),
  /** The current (mA, signed), where the servo reports one. */
  current_ma: z.optional(z.number()),
  /** Hardware-error bits set now. */
  hardware_errors: z.array(HARDWARE_ERROR_KIND),
  /** Tripped on a hardware error: no motion is sent to it until an operator recovers it (usually torque off). */
  shut_down: z.boolean(),
  /** Worst first. */
  alerts: z.array(SERVO_ALERT_VIEW),
});
export type ServoHealthView = WireOf<typeof SERVO_HEALTH_VIEW>;
