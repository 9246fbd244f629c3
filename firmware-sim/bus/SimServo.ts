import { decodeRegister, encodeRegister, type Register, type ServoControlTable } from "../../src/protocol/bus/index.js";
import type { ServoAxis } from "../../src/protocol/bus/servoAxes.js";
import { hold, minimumDuration, trapezoid, type Trajectory } from "../Trajectory.js";
import { servoFactoryValues, type ServoFactoryValues } from "./servoFactoryValues.js";

/** Speeds a servo uses when its profile registers say 0 ("as fast as it can"), in counts/s and counts/s². */
const FASTEST_VELOCITY = 6000;
const FASTEST_ACCELERATION = 60000;
/** Power-on goal register, away from the present position: a host that enables torque first is caught moving the arm. */
export const POWER_ON_GOAL_OFFSET = 700;
/** A hand moving a joint: how hard it accelerates (counts/s²). */
const HAND_ACCELERATION = 20000;
/**
 * Effort (% of maximum output) the simulated servo reports: a little to hold
 * its pose, more while it drives a profile. Not a dynamics model: enough that
 * the load register moves with the servo and reads 0 with torque off.
 */
const HOLD_LOAD_PCT = 4;
const MOVING_LOAD_PCT = 18;
/** Dynamixel X in position mode ignores a Homing_Offset outside ±1,024 (e-Manual control_table_homingoffset.md). */
const X_POSITION_MODE_HOMING_LIMIT = 1024;

/** What one simulated servo is, beyond its joint: what it reports and how the line reaches it. */
export interface SimServoSpec {
  readonly id: number;
  readonly baud: number;
  readonly modelNumber: number;
  /** Firmware version registers' values, major first. */
  readonly firmware: readonly number[];
  /** Supply voltage (V) and temperature (°C) it reads. */
  readonly voltage: number;
  readonly temperature: number;
}

/**
 * One simulated servo: its control table as bytes, and the physics behind
 * the registers (a trapezoidal profile from Profile_Velocity /
 * Profile_Acceleration, or Feetech's Goal_Velocity / Acceleration).
 *
 * EEPROM (below the table's `setup.ramStart`) survives a power loss: what
 * the host wrote there, when the servo kept it (a Dynamixel writes EEPROM
 * only with torque off; a Feetech keeps it only while `Lock` is 0), is
 * restored at power-on; RAM comes back at its power-on values.
 */
export class SimServo {
  readonly memory = new Uint8Array(256);
  /** Where the horn is, in counts (fractional: physics, not the register). */
  position: number;
  trajectory: Trajectory;
  /** A motion (effects-log key) this servo is part of, while it moves under it. */
  motionKey: string | undefined;
  endTimer: { id: number } | undefined;
  /** Deaf and mute until then (coming up after a power loss). */
  bootingUntil = -Infinity;
  /** Supply voltage (V) and temperature (°C): what the health registers read. */
  voltage: number;
  temperature: number;
  /** Extra effort (% of maximum output) something pushing on the horn adds (tests); signed. */
  pushLoadPct = 0;
  readonly #eeprom: Uint8Array;
  readonly #factory: ServoFactoryValues;

  constructor(
    /** How the servo is mounted on its joint: the simulator's truth, which the effects log reports in. */
    readonly axis: ServoAxis,
    readonly table: ServoControlTable,
    spec: SimServoSpec,
    startCount: number,
    now: number,
  ) {
    this.position = startCount;
    this.trajectory = hold(startCount, now, now);
    this.voltage = spec.voltage;
    this.temperature = spec.temperature;
    const setup = table.setup;
    this.set(table.modelNumber, spec.modelNumber);
    spec.firmware.forEach((v, i) => {
      const reg = setup.firmware[i];
      if (reg) this.set(reg, v);
    });
    this.set(setup.id, spec.id);
    this.set(setup.baudRate, setup.baudValues[spec.baud] ?? 0);
    this.set(table.operatingMode, table.positionMode);
    if (table.gripLimitNeedsTorqueOff) this.set(table.gripLimit, 1750);
    // The model's factory values (servoFactoryValues.ts cites each): what a new servo tells a host.
    const f = servoFactoryValues(table.family, spec.modelNumber);
    this.#factory = f;
    this.set(setup.minVoltageLimit, f.minVoltageLimit);
    this.set(setup.maxVoltageLimit, f.maxVoltageLimit);
    this.set(setup.temperatureLimit, f.temperatureLimit);
    this.set(setup.minPositionLimit, f.minPositionLimit);
    this.set(setup.maxPositionLimit, f.maxPositionLimit);
    this.set(setup.returnDelayTime, f.returnDelayTime);
    this.set(setup.statusReturnLevel.register, f.statusReturnLevel);
    if (setup.movingThreshold && f.movingThreshold !== undefined) this.set(setup.movingThreshold, f.movingThreshold);
    this.#eeprom = this.memory.slice(0, setup.ramStart);
    this.powerOn();
  }

  /** Power-on values: EEPROM as last kept, torque off, no error, and a goal register that is not where the horn is. */
  powerOn(): void {
    const { table } = this;
    this.memory.fill(0);
    this.memory.set(this.#eeprom, 0);
    // Dynamixel keeps Status_Return_Level in RAM: it comes back at its initial value.
    const srl = table.setup.statusReturnLevel.register;
    if (srl.address >= table.setup.ramStart) this.set(srl, this.#factory.statusReturnLevel);
    this.set(table.goalPosition, this.registerCount(this.position) + POWER_ON_GOAL_OFFSET);
    if (!table.gripLimitNeedsTorqueOff) this.set(table.gripLimit, 1000);
    const lock = table.setup.eepromLock;
    if (lock) this.set(lock.register, lock.locked);
  }

  /** The id it answers to now (its ID register). */
  get id(): number {
    return this.get(this.table.setup.id);
  }

  /** The baud it listens and answers at now (its Baud_Rate register). */
  get baud(): number {
    const value = this.get(this.table.setup.baudRate);
    const entry = Object.entries(this.table.setup.baudValues).find(([, v]) => v === value);
    return entry ? Number(entry[0]) : Number.NaN;
  }

  get(reg: Register): number {
    return decodeRegister(reg, this.memory, reg.address) ?? 0;
  }

  set(reg: Register, value: number): void {
    this.memory.set(encodeRegister(reg, value), reg.address);
  }

  /** Keeps the EEPROM bytes in [address, address + length) across power loss, as written now. */
  keepEeprom(address: number, length: number): void {
    const end = Math.min(this.#eeprom.length, address + length);
    for (let a = address; a < end; a++) this.#eeprom[a] = this.memory[a] ?? 0;
  }

  get torque(): boolean {
    return this.get(this.table.torqueEnable) === 1;
  }

  get hardwareError(): number {
    return this.get(this.table.hardwareError);
  }

  sample(now: number): void {
    this.position = this.trajectory.positionAt(now);
  }

  moving(now: number): boolean {
    return now < this.trajectory.endMs && this.trajectory.from !== this.trajectory.to;
  }

  /** Refreshes the read-only registers from the physics before a read. */
  refresh(now: number): void {
    this.sample(now);
    const setup = this.table.setup;
    this.set(this.table.presentPosition, this.registerCount(this.position));
    this.set(this.table.presentVelocity, Math.round(this.trajectory.velocityAt(now) / this.table.presentVelocityUnit));
    this.set(this.table.moving, this.moving(now) ? 1 : 0);
    this.set(setup.presentVoltage, Math.round(this.voltage / setup.voltageUnit));
    this.set(setup.presentTemperature, Math.round(this.temperature));
    const effort = this.table.condition.effort(this.get(this.table.modelNumber));
    if (effort) {
      const pct = this.loadPct(now);
      // A current register reads the share of Current_Limit in its own unit; a load register in 0.1 %.
      const limitMa = effort.kind === "current" ? this.get(effort.limit) * effort.milliampsPerUnit : 0;
      this.set(
        effort.register,
        effort.kind === "load"
          ? Math.round(pct / effort.percentPerUnit)
          : Math.round(((pct / 100) * limitMa) / effort.milliampsPerUnit),
      );
    }
  }

  /** The effort it makes now (% of maximum output, signed by direction): none with torque off. */
  loadPct(now: number): number {
    if (!this.torque) return 0;
    const v = this.trajectory.velocityAt(now);
    const drive = this.moving(now) && v !== 0 ? Math.sign(v) * MOVING_LOAD_PCT : HOLD_LOAD_PCT;
    return Math.max(-100, Math.min(100, drive + this.pushLoadPct));
  }

  /** Whether its temperature is past its own Temperature_Limit (the overheating condition). */
  get overheated(): boolean {
    return this.temperature > this.get(this.table.setup.temperatureLimit);
  }

  /** Whether its supply is outside its own Min / Max_Voltage_Limit (the input-voltage condition). */
  get voltageOutOfRange(): boolean {
    const setup = this.table.setup;
    const v = this.voltage / setup.voltageUnit;
    return v < this.get(setup.minVoltageLimit) || v > this.get(setup.maxVoltageLimit);
  }

  /**
   * The Homing_Offset in force: Present_Position = actual + sign × offset
   * (ServoSetupTable.homingOffsetSign). A Dynamixel in position mode ignores
   * one outside ±1,024.
   */
  homingOffset(): number {
    const setup = this.table.setup;
    const h = this.get(setup.homingOffset);
    const xPositionMode =
      this.table.family === "dynamixel_x" && this.get(this.table.operatingMode) === this.table.positionMode;
    return xPositionMode && Math.abs(h) > X_POSITION_MODE_HOMING_LIMIT ? 0 : setup.homingOffsetSign * h;
  }

  /** The position register's count for where the horn truly is (counts). */
  registerCount(actual: number): number {
    return Math.round(actual + this.homingOffset());
  }

  /** Whether a goal (register frame) lies within Min / Max_Position_Limit, which bound goals in position mode only. */
  goalWithinLimits(goal: number): boolean {
    const setup = this.table.setup;
    if (this.get(this.table.operatingMode) !== this.table.positionMode) return true;
    return goal >= this.get(setup.minPositionLimit) && goal <= this.get(setup.maxPositionLimit);
  }

  /** Where the goal register sends the horn (counts): through the Homing_Offset, no further than a Feetech's limits. */
  goalActual(): number {
    const setup = this.table.setup;
    let goal = this.get(this.table.goalPosition);
    if (
      setup.goalOutsideLimits.kind === "stops_at_limit" &&
      this.get(this.table.operatingMode) === this.table.positionMode
    ) {
      goal = Math.min(this.get(setup.maxPositionLimit), Math.max(this.get(setup.minPositionLimit), goal));
    }
    return goal - this.homingOffset();
  }

  /** Plans the move to the goal register from where the horn is now. */
  planToGoal(now: number): Trajectory {
    this.sample(now);
    const goal = this.goalActual();
    const { velocityUnits, accelerationUnits } = this.profileUnits();
    const v = velocityUnits === 0 ? FASTEST_VELOCITY : velocityUnits * this.table.profileVelocityUnit;
    const a = accelerationUnits === 0 ? FASTEST_ACCELERATION : accelerationUnits * this.table.profileAccelerationUnit;
    const durationMs = minimumDuration(goal - this.position, v, a) * 1000;
    this.trajectory = trapezoid(this.position, goal, now, durationMs, a);
    return this.trajectory;
  }

  /** A hand turns the horn (torque off) to `toCount`, taking `durationMs`. */
  turnByHand(now: number, toCount: number, durationMs: number): Trajectory {
    this.sample(now);
    const duration = Math.max(
      durationMs,
      minimumDuration(toCount - this.position, Number.POSITIVE_INFINITY, HAND_ACCELERATION) * 1000,
    );
    this.trajectory = trapezoid(this.position, toCount, now, duration, HAND_ACCELERATION);
    return this.trajectory;
  }

  /** Stops where the horn is now (stall, power loss, torque off). */
  freeze(now: number): void {
    this.sample(now);
    this.trajectory = hold(this.position, now, now);
  }

  private profileUnits(): { velocityUnits: number; accelerationUnits: number } {
    const block = this.table.motionBlock;
    const bytes = this.memory.subarray(block.address, block.address + block.size);
    // Both families put acceleration first in the motion block; velocity is last (Feetech) or second (Dynamixel).
    if (this.table.family === "dynamixel_x") {
      return { accelerationUnits: readLe(bytes, 0, 4), velocityUnits: readLe(bytes, 4, 4) };
    }
    return { accelerationUnits: readLe(bytes, 0, 1), velocityUnits: readLe(bytes, 5, 2) & 0x7fff };
  }
}

function readLe(bytes: Uint8Array, offset: number, size: number): number {
  let v = 0;
  for (let i = 0; i < size; i++) v += (bytes[offset + i] ?? 0) * 2 ** (8 * i);
  return v;
}
