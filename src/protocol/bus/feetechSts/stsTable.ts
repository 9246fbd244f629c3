import type { ServoControlTable } from "../BusProtocol.js";
import { encodeRegister, register, signMagnitude } from "../wordCodec.js";
import type { EffortRegister, ServoConditionTable } from "../ServoConditionTable.js";
import { STS_SETUP } from "./stsSetup.js";

/**
 * The Feetech STS/SMS control table as armbridge uses it (STS3215 of the
 * SO-100/SO-101). Addresses and sizes: Feetech STS/SMS memory table
 * (http://doc.feetech.cn/#/prodinfodownload?srcType=FT-SMS-STS-emanual-229f4476422d4059abfb1cb0),
 * as listed in LeRobot src/lerobot/motors/feetech/tables.py
 * (STS_SMS_SERIES_CONTROL_TABLE, commit 0558acc97b50079ffe184f2e0c4e2a93ed5b7f8f),
 * with its sign-magnitude encodings (Goal/Present_Velocity: bit 15) and model
 * number (STS3215 = 777).
 *
 * Units (Feetech manual): Goal_Velocity 1 step/s (50 steps/s = 0.732 rev/min),
 * Acceleration 100 steps/s² (one byte, 0 = the servo's maximum); 4096 steps
 * per revolution. Status (65) bits, as scservo_sdk names them
 * (protocol_packet_handler.py ERRBIT_*): 0 voltage, 1 angle sensor,
 * 2 overheat, 3 overcurrent, 5 overload.
 */
const ACCELERATION = register(41, 1);
const GOAL_POSITION = register(42, 2, signMagnitude(15));
const GOAL_TIME = register(44, 2);
const GOAL_VELOCITY = register(46, 2, signMagnitude(15));

/**
 * Present_Load (60, 2 bytes, 0.1 %, sign-magnitude with the sign in bit 10:
 * LeRobot STS_SMS_SERIES_ENCODINGS_TABLE), Present_Voltage (62) and
 * Present_Temperature (63) all sit inside the status block read every cycle;
 * the limits are Max_Temperature_Limit (13), Max / Min_Voltage_Limit (14 / 15)
 * (ftservo/ftservo-wiki docs/en/reference/memory-sms-sts.md @
 * a1c18bd4df9c845c3027703ed0b13b2093147afb; stsSetup.ts). Status bits follow
 * the condition; the factory Unloading_Condition (19) is 44 — overheating,
 * overcurrent and overload unload the servo (torque off) — while a voltage
 * outside the limits only sets its bit.
 */
const STS_EFFORT: EffortRegister = { kind: "load", register: register(60, 2, signMagnitude(10)), percentPerUnit: 0.1 };
const STS_CONDITION: ServoConditionTable = {
  presentBlock: undefined,
  // 9..15: Min / Max_Position_Limit (9 / 11), which bound every goal in position mode, and the limits above.
  limitsBlock: { address: 9, size: 7 },
  effort: () => STS_EFFORT,
  hardwareErrorKinds: { 0: "input_voltage", 1: "encoder", 2: "overheating", 3: "overcurrent", 5: "overload" },
};

export const STS_TABLE: ServoControlTable = {
  family: "feetech_sts",
  modelNumbers: { sts3215: 777, sts3250: 2825 },
  modelNumber: register(3, 2),
  operatingMode: register(33, 1),
  positionMode: 0,
  currentBasedPositionMode: undefined,
  gripLimit: register(48, 2),
  gripLimitNeedsTorqueOff: false,
  torqueEnable: register(40, 1),
  goalPosition: GOAL_POSITION,
  presentPosition: register(56, 2, signMagnitude(15)),
  presentVelocity: register(58, 2, signMagnitude(15)),
  hardwareError: register(65, 1),
  hardwareErrorNames: {
    0: "input voltage error",
    1: "angle sensor error",
    2: "overheating",
    3: "overcurrent",
    5: "overload",
  },
  moving: register(66, 1),
  // Acceleration, Goal_Position, Goal_Time (0: speed-based), Goal_Velocity.
  motionBlock: { address: 41, size: 7 },
  encodeMotion(goal, velocityUnits, accelerationUnits) {
    return Uint8Array.from([
      ...encodeRegister(ACCELERATION, accelerationUnits),
      ...encodeRegister(GOAL_POSITION, goal),
      ...encodeRegister(GOAL_TIME, 0),
      ...encodeRegister(GOAL_VELOCITY, velocityUnits),
    ]);
  },
  // Torque_Enable (40) … Moving (66): one read covers torque, goal, position, velocity, status, moving.
  statusBlocks: [{ address: 40, size: 27 }],
  profileVelocityUnit: 1,
  profileAccelerationUnit: 100,
  maxProfileVelocityUnits: 32767,
  maxProfileAccelerationUnits: 254,
  presentVelocityUnit: 1,
  setup: STS_SETUP,
  condition: STS_CONDITION,
};
