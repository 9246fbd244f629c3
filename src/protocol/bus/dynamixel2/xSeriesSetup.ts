import type { ServoSetupTable } from "../ServoSetupTable.js";
import { register, twosComplement } from "../wordCodec.js";

/**
 * DYNAMIXEL X-series set-up registers (ROBOTIS e-Manual, XL330-M288-T
 * control table, ROBOTIS-GIT/emanual docs/en/dxl/x/xl330-m288.md @
 * 028a13d257d7b1869b6f46af65d482c912b6852f; the same addresses on XL430,
 * XM430, as LeRobot's X_SERIES_CONTROL_TABLE in
 * src/lerobot/motors/dynamixel/tables.py @ 7427f31801f944f5ec9ce53cda02862ce7d1638b):
 *
 * - ID (7), initial 1, range 0–252. Protocol 2.0 packet ids: 0–252 usable,
 *   254 (0xFE) broadcast, 253 and 255 unused (e-Manual Protocol 2.0,
 *   "Packet ID", docs/en/dxl/protocol2.md @ 01179568).
 * - Baud Rate (8): 0 = 9 600, 1 = 57 600 (initial), 2 = 115 200, 3 = 1 M,
 *   4 = 2 M, 5 = 3 M, 6 = 4 M (_includes/en/dxl/control_table_baudrate_2.md
 *   @ 113e26f7, the XL330/XC330 table; LeRobot X_SERIES_BAUDRATE_TABLE).
 * - "Data in the EEPROM Area can only be written when the value of Torque
 *   Enable(64) is cleared to '0'" (xl330-m288.md): a write under torque is
 *   answered with Access Error (Protocol 2.0 status error 7).
 * - Firmware Version (6); Temperature Limit (31, °C), Max / Min Voltage
 *   Limit (32 / 34, 0.1 V); Present Input Voltage (144, 0.1 V); Present
 *   Temperature (146, °C); Homing Offset (20, 4 bytes, two's complement).
 * - Ping: "the Status Packet is always sent", with the model number and the
 *   firmware version as its three parameters; to the broadcast id "all
 *   devices send their Status Packet according to their arranged order"
 *   (Protocol 2.0, "Ping"). DynamixelSDK's broadcastPing listens for the wire
 *   time of 14 bytes per id plus 3 ms per id plus 16 ms
 *   (ROBOTIS-GIT/DynamixelSDK python/src/dynamixel_sdk/protocol2_packet_handler.py
 *   @ 27f7f06882d0a8882340043327e19f93eedb70e1).
 * - Homing Offset: "Present Position(132) = Actual Position + Homing
 *   Offset(20)"; in position mode only −1,024..1,024 is valid, other values
 *   are ignored (ROBOTIS-GIT/emanual _includes/en/dxl/control_table_homingoffset.md;
 *   LeRobot dynamixel.py _get_half_turn_homings says the same).
 * - Return Delay Time (9, 2 µs), Moving Threshold (24, 4 bytes), Max / Min
 *   Position Limit (48 / 52, 4 bytes), Status Return Level (68, RAM: 2 =
 *   answer every instruction) (xl330-m288.md control table). Goal Position's
 *   range is "Min Position Limit(52) ~ Max Position Limit(48)"; a value
 *   outside a register's limit is refused with status error 0x06, Data Limit
 *   Error (e-Manual Protocol 2.0 "Status Packet" error table; DynamixelSDK
 *   ERRNUM_DATA_LIMIT = 6).
 */
export const X_SERIES_SETUP: ServoSetupTable = {
  id: register(7, 1),
  ids: { min: 0, max: 252 },
  factoryId: 1,
  baudRate: register(8, 1),
  baudValues: { 9600: 0, 57600: 1, 115200: 2, 1000000: 3, 2000000: 4, 3000000: 5, 4000000: 6 },
  factoryBaud: 57600,
  firmware: [register(6, 1)],
  ramStart: 64,
  eepromNeedsTorqueOff: true,
  eepromLock: undefined,
  presentVoltage: register(144, 2),
  maxVoltageLimit: register(32, 2),
  minVoltageLimit: register(34, 2),
  voltageUnit: 0.1,
  presentTemperature: register(146, 1),
  temperatureLimit: register(31, 1),
  homingOffset: register(20, 4, twosComplement),
  homingOffsetSign: 1,
  minPositionLimit: register(52, 4),
  maxPositionLimit: register(48, 4),
  goalOutsideLimits: { kind: "refused", statusError: 6 },
  returnDelayTime: register(9, 1),
  statusReturnLevel: { register: register(68, 1), answersAll: 2 },
  movingThreshold: register(24, 4),
  pingReportsModel: true,
  pingReplyBytes: 14,
  broadcastPingSlotMs: 3,
};
