/**
 * How a reading stands against a servo's own limit — the one judgement
 * `armbridge doctor` prints and the running bridge's servo health warns with.
 * `past`: at or beyond the limit (the servo's protection acts there, or is
 * about to); `near`: inside it, close enough that an operator should look.
 */
export type LimitStanding = "inside" | "near" | "past";

/**
 * A voltage this close to a limit, as a share of the limit, is near it.
 * Narrow enough that a servo on its rated supply is not "near" its factory
 * limit: an STS3215 (7.4 V version) ships with Max_Voltage_Limit 8.0 V
 * (Feetech memory table), and 7.4 V is 7.5 % below it.
 */
export const VOLTAGE_NEAR_SHARE = 0.05;
/**
 * Degrees below Temperature_Limit that count as near it. The e-Manual asks
 * for 20 minutes of cooling after an overheating shutdown
 * (ROBOTIS-GIT/emanual _includes/en/dxl/x/temperature_limit.md @ 048ec0de);
 * ten degrees of warning leaves time to stop before that.
 */
export const TEMPERATURE_MARGIN_C = 10;
/**
 * Effort (% of maximum output or of Current_Limit) at or above which a servo
 * is near overload: the overload protection trips on "persistent load that
 * exceeds maximum output" (e-Manual Shutdown), so a servo held there for long
 * is about to shut down.
 */
export const LOAD_NEAR_PCT = 80;

export function judgeTemperature(celsius: number, limit: number): LimitStanding {
  return celsius >= limit ? "past" : celsius >= limit - TEMPERATURE_MARGIN_C ? "near" : "inside";
}

export function judgeVoltage(volts: number, min: number, max: number): LimitStanding {
  if (volts < min || volts > max) return "past";
  return volts < min * (1 + VOLTAGE_NEAR_SHARE) || volts > max * (1 - VOLTAGE_NEAR_SHARE) ? "near" : "inside";
}

export function judgeLoad(percent: number): LimitStanding {
  const p = Math.abs(percent);
  return p >= 100 ? "past" : p >= LOAD_NEAR_PCT ? "near" : "inside";
}
