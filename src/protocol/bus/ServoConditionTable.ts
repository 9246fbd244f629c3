import type { Register } from "./wordCodec.js";

/** A contiguous run of registers read in one instruction (the same shape as BusProtocol's RegisterBlock). */
interface ConditionBlock {
  readonly address: number;
  readonly size: number;
}

/** What a hardware-error bit means, whatever the family calls it. */
export type HardwareErrorKind =
  "input_voltage" | "overheating" | "overload" | "overcurrent" | "electrical_shock" | "encoder";

/**
 * How a servo reports the effort it is making: an estimated share of its
 * maximum output (Dynamixel XL430 Present_Load, Feetech Present_Load, both
 * 0.1 %), or a measured current that is read against the servo's own
 * Current_Limit (Dynamixel models with current sensing: XL330, XM430, …).
 */
export type EffortRegister =
  | { readonly kind: "load"; readonly register: Register; readonly percentPerUnit: number }
  | {
      readonly kind: "current";
      readonly register: Register;
      readonly milliampsPerUnit: number;
      readonly limit: Register;
    };

/**
 * Where a servo family reports its condition — temperature, supply voltage,
 * effort — and keeps its own limits, and what its hardware-error bits mean.
 * The status loop reads these on a slow schedule beside the status blocks
 * (BusStatusLoop); the registers themselves are the set-up table's
 * (ServoSetupTable: presentTemperature, temperatureLimit, presentVoltage,
 * min/maxVoltageLimit), so `armbridge doctor` and the running bridge read the
 * same ones.
 */
export interface ServoConditionTable {
  /** Present input voltage and temperature, when the status blocks do not cover them (Dynamixel X: 144..146); undefined = read every cycle already. */
  readonly presentBlock: ConditionBlock | undefined;
  /** The servo's own limits (EEPROM): temperature, voltage, Current_Limit where effort is a current, and Min / Max_Position_Limit. */
  readonly limitsBlock: ConditionBlock;
  /** How a servo of this model number reports effort; undefined when it does not (or the model is not known). */
  effort(modelNumber: number | undefined): EffortRegister | undefined;
  /** What each hardware-error bit means (bit → kind). */
  readonly hardwareErrorKinds: Readonly<Record<number, HardwareErrorKind>>;
}

/** The kinds of the set bits of a hardware-error register (unknown bits left out: their names stay in the faults). */
export function hardwareErrorKinds(table: ServoConditionTable, bits: number): HardwareErrorKind[] {
  const kinds: HardwareErrorKind[] = [];
  for (let bit = 0; bit < 8; bit++) {
    const kind = table.hardwareErrorKinds[bit];
    if (bits & (1 << bit) && kind !== undefined) kinds.push(kind);
  }
  return kinds;
}
