import type { Register } from "./wordCodec.js";

/**
 * What the set-up tools (bus scan, set-id, set-baud, calibrate, doctor) need
 * of a servo family's control table, beside what the transport drives it
 * with (ServoControlTable): where the id and baud live, what the factory
 * ships, how EEPROM is guarded, and the health registers. Each family's
 * table cites its vendor source (xSeriesSetup.ts, stsSetup.ts).
 */
export interface ServoSetupTable {
  /** The ID register (EEPROM) and the ids a servo may take. */
  readonly id: Register;
  readonly ids: { readonly min: number; readonly max: number };
  readonly factoryId: number;
  /** The Baud_Rate register (EEPROM) and its value for each baud the family supports. */
  readonly baudRate: Register;
  readonly baudValues: Readonly<Record<number, number>>;
  readonly factoryBaud: number;
  /** Firmware version registers, major first; printed joined by ".". */
  readonly firmware: readonly Register[];
  /** The first RAM address: below it is EEPROM. */
  readonly ramStart: number;
  /** Whether EEPROM takes writes only with torque off (Dynamixel X: else Access Error). */
  readonly eepromNeedsTorqueOff: boolean;
  /** A lock register guarding EEPROM writes (Feetech `Lock`), with its unlocked and locked values; undefined where there is none. */
  readonly eepromLock: { readonly register: Register; readonly unlocked: number; readonly locked: number } | undefined;
  /** Present input voltage, in `voltageUnit` volts per count, and the servo's own limits in the same unit. */
  readonly presentVoltage: Register;
  readonly minVoltageLimit: Register;
  readonly maxVoltageLimit: Register;
  readonly voltageUnit: number;
  /** Present temperature and the servo's own limit, °C. */
  readonly presentTemperature: Register;
  readonly temperatureLimit: Register;
  /** The servo's own zero offset (LeRobot writes it when it calibrates): Present_Position already includes it. */
  readonly homingOffset: Register;
  /**
   * How Homing_Offset enters the position registers: Present_Position =
   * actual + sign × Homing_Offset, and a Goal_Position is read in the same
   * frame. Dynamixel +1, Feetech −1 (each table cites its source).
   */
  readonly homingOffsetSign: 1 | -1;
  /** Min / Max_Position_Limit (EEPROM): a servo's own bounds on a goal in position mode, in the Present_Position frame. */
  readonly minPositionLimit: Register;
  readonly maxPositionLimit: Register;
  /**
   * What a servo in position mode does with a goal outside its position
   * limits: refuses the write with this status error and keeps its old goal
   * (Dynamixel X: Data Limit Error), or goes no further than the limit
   * (Feetech STS).
   */
  readonly goalOutsideLimits:
    { readonly kind: "refused"; readonly statusError: number } | { readonly kind: "stops_at_limit" };
  /** Return_Delay_Time (2 µs per unit): how long a servo waits before its status packet. */
  readonly returnDelayTime: Register;
  /** Which instructions get a status packet (Dynamixel Status_Return_Level, RAM; Feetech Response_Status_Level, EEPROM); at `answersAll` every one does. */
  readonly statusReturnLevel: { readonly register: Register; readonly answersAll: number };
  /** Moving_Threshold (velocity below which Moving reads 0), where the family keeps one in its user table. */
  readonly movingThreshold: Register | undefined;
  /** Whether a ping's status packet carries the model number and firmware (Dynamixel 2.0); otherwise they are read. */
  readonly pingReportsModel: boolean;
  /** Bytes on the wire of one servo's answer to a broadcast ping. */
  readonly pingReplyBytes: number;
  /** How long a host waits per possible id for broadcast-ping answers, beyond their wire time (ms). */
  readonly broadcastPingSlotMs: number;
}

/** How long to listen after a broadcast ping at `baud`: every id's answer on the wire, a slot per id, and a margin. */
export function broadcastPingWaitMs(setup: ServoSetupTable, baud: number): number {
  const ids = setup.ids.max - setup.ids.min + 1;
  return Math.ceil((ids * setup.pingReplyBytes * 10 * 1000) / baud + ids * setup.broadcastPingSlotMs + 16);
}
