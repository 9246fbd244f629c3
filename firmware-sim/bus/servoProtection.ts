import type { HardwareErrorKind, ServoControlTable } from "../../src/protocol/bus/index.js";
import type { SimServo } from "./SimServo.js";

/** What a servo's own protections make of its temperature and supply now. */
export type ProtectionVerdict =
  /** Its error register should read `bits` (set or cleared by the conditions); torque is left as it is. */
  | { readonly kind: "bits"; readonly bits: number }
  /** It has just passed its temperature limit: it shuts down (torque off, motion ended) with these bits. */
  | { readonly kind: "trip"; readonly bits: number; readonly detail: string };

/**
 * A servo's own protections on its temperature and supply, as its control
 * table says (the condition tables in xSeriesTable.ts and stsTable.ts):
 * - past Temperature_Limit the overheating bit is set and the servo turns
 *   its torque off: Dynamixel X because overheating is in the default
 *   Shutdown(63), keeping the bit until a REBOOT; Feetech because it is in
 *   the factory Unloading_Condition (19), its bit following the temperature;
 * - outside Min / Max_Voltage_Limit the input-voltage bit is set, and clears
 *   when the supply is back (in neither family's default shutdown): torque
 *   stays on.
 */
export function servoProtection(s: SimServo, table: ServoControlTable): ProtectionVerdict {
  const heat = bitOf(table, "overheating");
  const volt = bitOf(table, "input_voltage");
  let bits = s.hardwareError;
  bits = s.voltageOutOfRange ? bits | volt : bits & ~volt;
  if (s.overheated && (bits & heat) === 0)
    return { kind: "trip", bits: bits | heat, detail: `overheating: ${s.temperature} °C past its limit` };
  const latches = table.family === "dynamixel_x";
  if (!s.overheated && !latches) bits &= ~heat;
  return { kind: "bits", bits };
}

function bitOf(table: ServoControlTable, kind: HardwareErrorKind): number {
  const entry = Object.entries(table.condition.hardwareErrorKinds).find(([, k]) => k === kind);
  return entry ? 1 << Number(entry[0]) : 0;
}
