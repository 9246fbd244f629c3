import type { HardwareErrorKind, ServoAlert, ServoHealth } from "../ServoHealth.js";
import {
  decodeRegister,
  hardwareErrorKinds,
  type HardwareErrorKind as TableErrorKind,
  type Register,
  type ServoControlTable,
} from "../../protocol/bus/index.js";
import { judgeLoad, judgeTemperature, judgeVoltage, type LimitStanding } from "./servoConditionLimits.js";
import type { ServoState } from "./ServoState.js";

/**
 * The control tables name their error bits in the contract's words: the
 * build breaks here if one side gains a kind the other lacks.
 */
type SameKinds = [TableErrorKind] extends [HardwareErrorKind]
  ? [HardwareErrorKind] extends [TableErrorKind]
    ? true
    : never
  : never;
const kindsAgree: SameKinds = true;
void kindsAgree;

/**
 * How a servo that shut down comes back, per vendor: the advice names only
 * what armbridge itself offers (`armbridge recover`; the console has no
 * recover button) and what the vendor's servo needs.
 * - Dynamixel X latches the error and keeps torque off until the servo is
 *   rebooted or power-cycled (ROBOTIS e-Manual, X-series "Hardware Error
 *   Status(70)" and "Shutdown(63)", ROBOTIS-GIT/emanual
 *   _includes/en/dxl/x/shutdown.md @ 53247968); `recover` sends the
 *   Protocol 2.0 REBOOT instruction.
 * - Feetech STS has no reboot instruction (its protocol's instructions are
 *   ping, read, write, reg write, action, sync read/write, and reset to
 *   factory values — not a restart). A condition enabled in
 *   Unloading_Condition (19) turns torque off and its Status (65) bit stays
 *   set while the condition lasts (Feetech STS/SMS memory table, as in LeRobot
 *   feetech/tables.py @ 0558acc9): once it is gone `recover` switches torque
 *   back on; a bit that stays set needs the servo power switched off and on.
 */
export const RECOVERY_ADVICE: Readonly<Record<string, (joint: string) => string>> = {
  dynamixel_x: (joint) =>
    `Then run \`armbridge recover --joint ${joint} --operator NAME\`: it sends the servo the REBOOT instruction (a Dynamixel keeps the error until it is rebooted or power-cycled) and switches torque back on holding the present position.`,
  feetech_sts: (joint) =>
    `Then run \`armbridge recover --joint ${joint} --operator NAME\`: a Feetech servo has no reboot instruction; once the condition is gone its Status bit clears and the recovery switches torque back on holding the present position. If the bit stays set, switch the servo power off and on.`,
};

/** What each hardware error is, in an operator's words, and what to do about it (per vendor where it differs). */
const HARDWARE_ERROR: Readonly<
  Record<HardwareErrorKind, { readonly what: string; readonly advice: (family: string) => string }>
> = {
  overheating: {
    what: "overheating (past its temperature limit)",
    advice: (family) =>
      family === "dynamixel_x"
        ? "Let it cool for 20 minutes or more before using it again (ROBOTIS e-Manual); a servo that runs hot is holding against a load — check the arm's balance and what it carries."
        : "Let it cool below its temperature limit (its Status bit follows the temperature); a servo that runs hot is holding against a load — check the arm's balance and what it carries.",
  },
  overload: {
    what: "overload (a load beyond its maximum output)",
    advice: () =>
      "Look at the arm first: something — a person included — may be in the way, or the payload is too heavy. Clear it.",
  },
  overcurrent: {
    what: "overcurrent",
    advice: () => "Look at the arm first: a blocked joint or a jammed gear draws too much current. Clear it.",
  },
  input_voltage: {
    what: "input voltage outside its limits",
    advice: () =>
      "Check the servo supply: its voltage, its current rating (a supply that sags under load trips servos) and the power leads of the daisy chain.",
  },
  electrical_shock: {
    what: "electrical shock (or too little power to drive the motor)",
    advice: () => "Switch the servo power off and check the wiring and the supply before powering on again.",
  },
  encoder: {
    what: "position sensor error",
    advice: () =>
      "The servo cannot tell where its horn is: power-cycle the servos; if it comes back, replace the servo.",
  },
};

const LEVEL_OF: Readonly<Record<LimitStanding, ServoAlert["level"] | undefined>> = {
  inside: undefined,
  near: "warning",
  past: "alarm",
};

/** Context a servo's health is read in: its model (for the effort register) and whether it is torque-off after a trip. */
export interface ServoHealthInput {
  readonly table: ServoControlTable;
  readonly servo: ServoState;
  readonly modelNumber: number | undefined;
}

/**
 * One servo's health from its register copy: the readings it has given
 * (absent, never 0, until it has), the servo's own limits, and an alert for
 * each hardware error and each reading near or past a limit.
 */
export function servoHealthOf({ table, servo: s, modelNumber }: ServoHealthInput): ServoHealth {
  const read = (reg: Register): number | undefined => decodeRegister(reg, s.memory, reg.address);
  const who = `servo ${s.axis.id} (${s.axis.name})`;
  const alerts: ServoAlert[] = [];
  const out: HealthDraft = {
    axis: s.axis.name,
    servo_id: s.axis.id,
    hardware_errors: [],
    shut_down: s.tripped !== undefined,
    alerts,
  };

  const bits = s.stampMs > 0 ? (read(table.hardwareError) ?? 0) : 0;
  out.hardware_errors = hardwareErrorKinds(table.condition, bits);
  const reading: Reading = { table, servo: s, read, who };
  alerts.push(...hardwareErrorAlerts(reading, out.hardware_errors));
  const effort = fillReadings(reading, out, modelNumber);
  alerts.push(...limitAlerts(reading, out, effort));
  alerts.sort((a, b) => (a.level === b.level ? 0 : a.level === "alarm" ? -1 : 1));
  return out;
}

/** One servo's registers being read into its health. */
interface Reading {
  readonly table: ServoControlTable;
  readonly servo: ServoState;
  readonly read: (reg: Register) => number | undefined;
  /** "servo 3 (elbow)", for messages. */
  readonly who: string;
}

type HealthDraft = { -readonly [K in keyof ServoHealth]: ServoHealth[K] };

/** How a servo model reports its effort (load or current), if it does. */
type Effort = ReturnType<ServoControlTable["condition"]["effort"]>;

/** An alarm for each hardware error set, and one for a trip whose bits have cleared. */
function hardwareErrorAlerts(
  { table, servo: s, read, who }: Reading,
  errors: readonly HardwareErrorKind[],
): ServoAlert[] {
  const alerts: ServoAlert[] = [];
  // An error outside the servo's shutdown set (a Dynamixel's input voltage, by default) leaves its torque on; the bridge still sends it nothing until recovered.
  const tripNote = !s.tripped
    ? ""
    : read(table.torqueEnable) === 0
      ? "; shut down, torque off until recovered"
      : "; no motion is sent to it until recovered";
  const recovery = RECOVERY_ADVICE[table.family]?.(s.axis.name) ?? "";
  // A servo that has not shut down (an input-voltage bit, outside the default shutdown set) needs no recovery step.
  const then = (advice: string): string => (s.tripped ? `${advice} ${recovery}`.trim() : advice);
  for (const error of errors) {
    const e = HARDWARE_ERROR[error];
    alerts.push({
      kind: "hardware_error",
      level: "alarm",
      error,
      message: `${who}: ${e.what}${tripNote}`,
      advice: then(e.advice(table.family)),
    });
  }
  if (errors.length === 0 && s.tripped) {
    alerts.push({
      kind: "hardware_error",
      level: "alarm",
      message: `${who}: shut down on ${s.tripped}; torque off until recovered`,
      advice: then("The condition has cleared; look at the arm for its cause."),
    });
  }

  return alerts;
}

/** The readings and the servo's own limits it has given (absent until it has); returns how it reports effort. */
function fillReadings({ table, servo: s, read }: Reading, out: HealthDraft, modelNumber: number | undefined): Effort {
  const setup = table.setup;
  // Feetech reports temperature and voltage in the block read every cycle; Dynamixel X in one read on its own schedule.
  const conditionAt = table.condition.presentBlock === undefined ? s.stampMs : s.conditionAt;
  if (conditionAt > 0) {
    out.read_at = conditionAt;
    const t = read(setup.presentTemperature);
    const v = read(setup.presentVoltage);
    if (t !== undefined) out.temperature_c = t;
    if (v !== undefined) out.voltage_v = round1(v * setup.voltageUnit);
  }
  if (s.limitsAt > 0) {
    const limit = read(setup.temperatureLimit);
    const lo = read(setup.minVoltageLimit);
    const hi = read(setup.maxVoltageLimit);
    if (limit !== undefined) out.temperature_limit_c = limit;
    if (lo !== undefined) out.voltage_min_v = round1(lo * setup.voltageUnit);
    if (hi !== undefined) out.voltage_max_v = round1(hi * setup.voltageUnit);
  }
  const effort = table.condition.effort(modelNumber);
  if (effort && s.stampMs > 0) {
    const raw = read(effort.register);
    if (raw !== undefined && effort.kind === "load") out.load_pct = round1(raw * effort.percentPerUnit);
    if (raw !== undefined && effort.kind === "current") {
      out.current_ma = Math.round(raw * effort.milliampsPerUnit);
      const cap = s.limitsAt > 0 ? read(effort.limit) : undefined;
      if (cap !== undefined && cap > 0) out.load_pct = round1((raw / cap) * 100);
    }
  }

  return effort;
}

/** An alert for each reading near or past the servo's own limit, unless its hardware error already says so. */
function limitAlerts({ table, who }: Reading, out: HealthDraft, effort: Effort): ServoAlert[] {
  const alerts: ServoAlert[] = [];
  const {
    temperature_c: t,
    temperature_limit_c: tl,
    voltage_v: v,
    voltage_min_v: vlo,
    voltage_max_v: vhi,
    load_pct: load,
  } = out;
  const has = (e: HardwareErrorKind): boolean => out.hardware_errors.includes(e);
  // A limit register reading 0 (or a voltage range that is no range) is no limit to judge against.
  if (t !== undefined && tl !== undefined && tl > 0 && !has("overheating")) {
    const level = LEVEL_OF[judgeTemperature(t, tl)];
    if (level)
      alerts.push({
        kind: "temperature",
        level,
        message: `${who}: ${t} °C, ${level === "alarm" ? "at" : "near"} its limit of ${tl} °C`,
        advice:
          "Let it rest with less load (a lower pose, no payload) before it shuts down on overheating; a servo that runs hot at rest is holding against a load.",
      });
  }
  if (v !== undefined && vlo !== undefined && vhi !== undefined && vhi > vlo && !has("input_voltage")) {
    const level = LEVEL_OF[judgeVoltage(v, vlo, vhi)];
    if (level)
      alerts.push({
        kind: "voltage",
        level,
        message: `${who}: supply ${v.toFixed(1)} V, ${level === "alarm" ? "outside" : "near"} its limits ${vlo.toFixed(1)}–${vhi.toFixed(1)} V`,
        advice: HARDWARE_ERROR.input_voltage.advice(table.family),
      });
  }
  if (load !== undefined && !has("overload") && !has("overcurrent")) {
    const level = LEVEL_OF[judgeLoad(load)];
    if (level)
      alerts.push({
        kind: "load",
        level,
        message: `${who}: load ${Math.abs(load).toFixed(0)} % of ${effort?.kind === "current" ? "its current limit" : "its maximum output"}`,
        advice:
          "Something may be pushing against the joint or the payload is heavy: ease the load before the overload protection shuts the servo down.",
      });
  }
  return alerts;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
