import type { Logger } from "pino";
import { decodeRegister, encodeSimMount, SIM_MOUNT_BLOCK, type BusProtocol } from "../../src/protocol/bus/index.js";
import type { ServoMotions } from "./ServoMotions.js";
import type { SimServo } from "./SimServo.js";

/** Dynamixel 2.0 status error 7: a write to EEPROM with torque on (among others). */
export const ACCESS_ERROR = 7;

/** One servo's part of a write: its registers from `address` on. */
export interface RegisterWrite {
  readonly servo: SimServo;
  readonly address: number;
  readonly data: Uint8Array;
}

/** One servo's answer to a read: its data, and a status error when it has one. */
export interface ReadAnswer {
  readonly servo: SimServo;
  readonly data: Uint8Array;
  readonly error?: number;
}

/**
 * The servos' registers as the bus reads and writes them: what a write
 * takes and refuses, what it starts or stops, what EEPROM keeps, and what a
 * read answers (the simulator's mount block included).
 */
export class RegisterFile {
  readonly #protocol: BusProtocol;
  readonly #logger: Logger;
  readonly #motions: ServoMotions;

  constructor(options: { readonly protocol: BusProtocol; readonly logger: Logger; readonly motions: ServoMotions }) {
    this.#protocol = options.protocol;
    this.#logger = options.logger;
    this.#motions = options.motions;
  }

  /** What a servo answers to a read: its registers, or the simulator's mount block at its own address. */
  read(servo: SimServo, address: number, length: number, now: number): ReadAnswer {
    const block = SIM_MOUNT_BLOCK[this.#protocol.name];
    // The mount in the frame the host reads positions in: through the servo's Homing_Offset.
    if (address === block.address && length === block.size)
      return {
        servo,
        data: encodeSimMount({
          kind: servo.axis.kind,
          zeroCount: servo.axis.zeroCount + servo.homingOffset(),
          countsPerUnit: servo.axis.countsPerUnit,
        }),
      };
    if (address + length > servo.memory.length) return { servo, data: new Uint8Array(0), error: ACCESS_ERROR };
    servo.refresh(now);
    return { servo, data: servo.memory.slice(address, address + length) };
  }

  /** Applies writes as the servos take them; returns the servos that refused theirs for a goal outside their position limits. */
  write(writes: readonly RegisterWrite[], now: number): Set<SimServo> {
    const table = this.#protocol.table;
    const goalChanged: SimServo[] = [];
    const torqueOn: SimServo[] = [];
    const refused = new Set<SimServo>();
    for (const { servo, address, data } of writes) {
      const end = address + data.length;
      const covers = (reg: { address: number; size: number }): boolean =>
        address <= reg.address && reg.address + reg.size <= end;
      const wasTorque = servo.torque;
      const oldGoal = servo.get(table.goalPosition);
      if (
        covers(table.torqueEnable) &&
        (data[table.torqueEnable.address - address] ?? 0) === 1 &&
        servo.hardwareError !== 0
      ) {
        // A servo in hardware error refuses torque until it is rebooted (e-Manual, Hardware_Error_Status).
        continue;
      }
      const newGoal = covers(table.goalPosition)
        ? decodeRegister(table.goalPosition, data, table.goalPosition.address - address)
        : undefined;
      if (
        newGoal !== undefined &&
        table.setup.goalOutsideLimits.kind === "refused" &&
        !servo.goalWithinLimits(newGoal)
      ) {
        // A Dynamixel X takes nothing of a write whose goal is outside Min/Max_Position_Limit: Data Limit Error, old goal kept, no motion.
        refused.add(servo);
        this.#logger.info(
          { servo: servo.axis.id, goal: newGoal },
          "goal outside the position limits refused (Data Limit Error)",
        );
        continue;
      }
      servo.memory.set(data, address);
      this.#keepEeprom(servo, address, data.length);
      if (covers(table.torqueEnable)) {
        if (!wasTorque && servo.torque) {
          // The motor takes over from a hand that was turning it: the horn stops where it is, then goes to the goal.
          servo.freeze(now);
          torqueOn.push(servo);
        }
        if (wasTorque && !servo.torque) this.#motions.end(servo, now, "stopped", "torque disabled");
      }
      if (
        covers(table.goalPosition) &&
        servo.torque &&
        (servo.get(table.goalPosition) !== oldGoal || !servo.moving(now))
      )
        goalChanged.push(servo);
    }
    // Enabling torque drives the horn to whatever the goal register holds: a careless host moves the arm here.
    const movers = [...new Set([...goalChanged, ...torqueOn])];
    if (movers.length > 0) this.#motions.start(movers, now);
    return refused;
  }

  /**
   * EEPROM written now is kept across power loss: on a Dynamixel whenever the
   * write was taken (torque off), on a Feetech only while Lock is 0 —
   * with Lock 1 the new value holds until the servo loses power.
   */
  #keepEeprom(servo: SimServo, address: number, length: number): void {
    const setup = this.#protocol.table.setup;
    if (address >= setup.ramStart) return;
    const lock = setup.eepromLock;
    if (lock && servo.get(lock.register) !== lock.unlocked) return;
    servo.keepEeprom(address, length);
  }

  /** The goal register of a servo. */
  goalOf(servo: SimServo): number | undefined {
    const goal = this.#protocol.table.goalPosition;
    return decodeRegister(goal, servo.memory, goal.address);
  }
}
