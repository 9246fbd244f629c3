import type { ServoSetupTable } from "../ServoSetupTable.js";
import { register, signMagnitude } from "../wordCodec.js";

/**
 * Feetech STS/SMS set-up registers (Feetech STS/SMS memory table, as listed
 * in LeRobot src/lerobot/motors/feetech/tables.py
 * STS_SMS_SERIES_CONTROL_TABLE and STS_SMS_SERIES_BAUDRATE_TABLE @
 * 7427f31801f944f5ec9ce53cda02862ce7d1638b):
 *
 * - Firmware major (0) and minor (1), Model_Number (3, 2 bytes), ID (5),
 *   Baud_Rate (6): 0 = 1 M (the STS3215's factory rate, LeRobot's default),
 *   1 = 500 000, 2 = 250 000, 3 = 128 000, 4 = 115 200, 5 = 57 600,
 *   6 = 38 400, 7 = 19 200. Ids 0–253, 254 (0xFE) broadcast.
 * - Lock (55) guards EEPROM: 0 lets EEPROM writes be kept, 1 locks it again
 *   (Feetech's SDK: unLockEprom writes 0, LockEprom writes 1; LeRobot
 *   feetech.py disable_torque writes Torque_Enable 0 then Lock 0, and
 *   enable_torque writes Lock 1; setup_motor turns torque off before it
 *   writes ID and Baud_Rate). armbridge unlocks, writes, and locks again.
 * - Max_Temperature_Limit (13, °C), Max / Min_Voltage_Limit (14 / 15,
 *   0.1 V), Present_Voltage (62, 0.1 V), Present_Temperature (63, °C),
 *   Homing_Offset (31, sign-magnitude with the sign in bit 11).
 * - Ping answers with a bare status packet (no parameters); the model is read
 *   from Model_Number. A broadcast ping is answered by every servo (LeRobot's
 *   `_broadcast_ping` for protocol 0, the STS protocol, listens for 6 bytes
 *   per id plus 3 ms per id plus 16 ms, as DynamixelSDK does).
 * - Homing_Offset enters with the opposite sign to Dynamixel's: "On Feetech
 *   Motors: Present_Position = Actual_Position - Homing_Offset" (LeRobot
 *   feetech.py _get_half_turn_homings, which computes offset = position −
 *   half turn). Its range is −2047..2047 (sign in bit 11).
 * - Return_Delay_Time (7, 2 µs), Response_Status_Level (8, EEPROM: 1 =
 *   answer every instruction, 0 = only reads and pings), Min / Max_
 *   Position_Limit (9 / 11, 2 bytes) (LeRobot tables.py
 *   STS_SMS_SERIES_CONTROL_TABLE; the Feetech memory table calls them the
 *   minimum / maximum angle limits, which "set the limit of motion stroke":
 *   a goal beyond one is not refused, the servo goes no further than the
 *   limit). The STS table has no Moving_Threshold in its user area.
 */
export const STS_SETUP: ServoSetupTable = {
  id: register(5, 1),
  ids: { min: 0, max: 253 },
  factoryId: 1,
  baudRate: register(6, 1),
  baudValues: { 1000000: 0, 500000: 1, 250000: 2, 128000: 3, 115200: 4, 57600: 5, 38400: 6, 19200: 7 },
  factoryBaud: 1000000,
  firmware: [register(0, 1), register(1, 1)],
  ramStart: 40,
  eepromNeedsTorqueOff: false,
  eepromLock: { register: register(55, 1), unlocked: 0, locked: 1 },
  presentVoltage: register(62, 1),
  maxVoltageLimit: register(14, 1),
  minVoltageLimit: register(15, 1),
  voltageUnit: 0.1,
  presentTemperature: register(63, 1),
  temperatureLimit: register(13, 1),
  homingOffset: register(31, 2, signMagnitude(11)),
  homingOffsetSign: -1,
  minPositionLimit: register(9, 2),
  maxPositionLimit: register(11, 2),
  goalOutsideLimits: { kind: "stops_at_limit" },
  returnDelayTime: register(7, 1),
  statusReturnLevel: { register: register(8, 1), answersAll: 1 },
  movingThreshold: undefined,
  pingReportsModel: false,
  pingReplyBytes: 6,
  broadcastPingSlotMs: 3,
};
