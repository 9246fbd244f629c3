import { decodeRegister, encodeRegister, type Register, type ServoControlTable } from "../../src/transport/bus/protocol/index.js";
import type { ServoAxis } from "../../src/transport/bus/servoAxes.js";
import { hold, minimumDuration, trapezoid, type Trajectory } from "../Trajectory.js";

/** Speeds a servo uses when its profile registers say 0 ("as fast as it can"), in counts/s and counts/s². */
const FASTEST_VELOCITY = 6000;
const FASTEST_ACCELERATION = 60000;
/** Power-on goal register, away from the present position: a host that enables torque first is caught moving the arm. */
export const POWER_ON_GOAL_OFFSET = 700;

/**
 * One simulated servo: its control table as bytes, and the physics behind
 * the registers (a trapezoidal profile from Profile_Velocity /
 * Profile_Acceleration, or Feetech's Goal_Velocity / Acceleration).
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

  constructor(
    readonly axis: ServoAxis,
    readonly table: ServoControlTable,
    modelNumber: number,
    startCount: number,
    now: number,
  ) {
    this.position = startCount;
    this.trajectory = hold(startCount, now, now);
    this.powerOn(modelNumber);
  }

  /** Power-on values: torque off, no error, and a goal register that is not where the horn is. */
  powerOn(modelNumber: number = this.get(this.table.modelNumber)): void {
    this.memory.fill(0);
    this.set(this.table.modelNumber, modelNumber);
    this.set(this.table.operatingMode, this.table.positionMode);
    this.set(this.table.goalPosition, Math.round(this.position) + POWER_ON_GOAL_OFFSET);
    this.set(this.table.gripLimit, this.table.gripLimitNeedsTorqueOff ? 1750 : 1000);
  }

  get(reg: Register): number {
    return decodeRegister(reg, this.memory, reg.address) ?? 0;
  }

  set(reg: Register, value: number): void {
    this.memory.set(encodeRegister(reg, value), reg.address);
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
    this.set(this.table.presentPosition, Math.round(this.position));
    this.set(this.table.presentVelocity, Math.round(this.trajectory.velocityAt(now) / this.table.presentVelocityUnit));
    this.set(this.table.moving, this.moving(now) ? 1 : 0);
  }

  /** Plans the move to the goal register from where the horn is now. */
  planToGoal(now: number): Trajectory {
    this.sample(now);
    const goal = this.get(this.table.goalPosition);
    const { velocityUnits, accelerationUnits } = this.profileUnits();
    const v = velocityUnits === 0 ? FASTEST_VELOCITY : velocityUnits * this.table.profileVelocityUnit;
    const a = accelerationUnits === 0 ? FASTEST_ACCELERATION : accelerationUnits * this.table.profileAccelerationUnit;
    const durationMs = minimumDuration(goal - this.position, v, a) * 1000;
    this.trajectory = trapezoid(this.position, goal, now, durationMs, a);
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
