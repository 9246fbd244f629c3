import type { ServoControlTable } from "../BusProtocol.js";
import { encodeRegister, register, twosComplement } from "../wordCodec.js";
import type { EffortRegister, ServoConditionTable } from "../ServoConditionTable.js";
import { X_SERIES_SETUP } from "./xSeriesSetup.js";

/**
 * The DYNAMIXEL X-series control table as armbridge uses it (XL330-M077/M288,
 * XL430-W250, XM430-W350: one table). Addresses and sizes: ROBOTIS e-Manual
 * X-series control tables (e.g. https://emanual.robotis.com/docs/en/dxl/x/xl330-m288/#control-table),
 * as also listed in LeRobot src/lerobot/motors/dynamixel/tables.py
 * (X_SERIES_CONTROL_TABLE, commit 01c9bf66dd1807df7af9708db63676602cea9cec);
 * model numbers from the same file.
 *
 * Units (e-Manual): Profile_Velocity 0.229 rev/min, Profile_Acceleration
 * 214.577 rev/min², Present_Velocity 0.229 rev/min; 4096 counts per
 * revolution. Hardware_Error_Status (70) bits: 0 input voltage, 2
 * overheating, 3 motor encoder, 4 electrical shock, 5 overload.
 */
const PROFILE_ACCELERATION = register(108, 4);
const PROFILE_VELOCITY = register(112, 4);
const GOAL_POSITION = register(116, 4, twosComplement);
const RPM_UNIT = 0.229;

/**
 * Address 126 is Present_Load on models without current sensing (XL430,
 * XC430: 0.1 % of the maximum output, -1000..1000, "an inferred value based
 * on the internal output value"; ROBOTIS-GIT/emanual
 * _includes/en/dxl/x/present_load.md @ add0d1dabec2202f8ae9848b7eda8e98f9a44b0f)
 * and Present_Current on those with it (XL330: 1 mA per unit; XM430, XM540:
 * 2.69 mA; e-Manual xl330-m288 / xm430-w350 control tables), read against
 * Current_Limit (38) in the same unit.
 */
const PRESENT_LOAD = register(126, 2, twosComplement);
const CURRENT_LIMIT = register(38, 2);
const LOAD: EffortRegister = { kind: "load", register: PRESENT_LOAD, percentPerUnit: 0.1 };
const current = (milliampsPerUnit: number): EffortRegister => ({
  kind: "current",
  register: PRESENT_LOAD,
  milliampsPerUnit,
  limit: CURRENT_LIMIT,
});
const EFFORT_BY_MODEL: Readonly<Record<number, EffortRegister>> = {
  1190: current(1),
  1200: current(1),
  1020: current(2.69),
  1120: current(2.69),
  1060: LOAD,
  1070: LOAD,
};

/**
 * Temperature_Limit (31), Max / Min_Voltage_Limit (32 / 34) and Current_Limit
 * (38) in one read of 31..55 (with the position limits); Present_Input_Voltage (144, 0.1 V) and
 * Present_Temperature (146, °C) in one of 144..146 (xSeriesSetup.ts). When
 * Present_Temperature passes Temperature_Limit the Overheating bit (0x04) and
 * the Alert bit are set, and with it in Shutdown(63) (a default) torque goes
 * off; leaving the voltage range sets the Input Voltage bit, which is not in
 * the default Shutdown (ROBOTIS-GIT/emanual _includes/en/dxl/x/temperature_limit.md
 * @ 048ec0de57bc856b9f127ef854243fb44c86d428, voltage_limit.md @ 51542429,
 * _includes/dxl/control_table_shutdown.md: overload, electrical shock and
 * overheating are the defaults).
 */
const X_SERIES_CONDITION: ServoConditionTable = {
  presentBlock: { address: 144, size: 3 },
  // 31..55: the limits above, and Max / Min Position Limit (48 / 52), which bound every goal in position mode.
  limitsBlock: { address: 31, size: 25 },
  effort: (model) => (model === undefined ? undefined : EFFORT_BY_MODEL[model]),
  hardwareErrorKinds: { 0: "input_voltage", 2: "overheating", 3: "encoder", 4: "electrical_shock", 5: "overload" },
};

export const X_SERIES_TABLE: ServoControlTable = {
  family: "dynamixel_x",
  modelNumbers: {
    "xl330-m077": 1190,
    "xl330-m288": 1200,
    "xl430-w250": 1060,
    "xm430-w350": 1020,
    "xm540-w270": 1120,
    "xc430-w150": 1070,
  },
  modelNumber: register(0, 2),
  operatingMode: register(11, 1),
  positionMode: 3,
  currentBasedPositionMode: 5,
  gripLimit: register(38, 2),
  gripLimitNeedsTorqueOff: true,
  torqueEnable: register(64, 1),
  hardwareError: register(70, 1),
  hardwareErrorNames: {
    0: "input voltage error",
    2: "overheating",
    3: "motor encoder error",
    4: "electrical shock",
    5: "overload",
  },
  goalPosition: GOAL_POSITION,
  moving: register(122, 1),
  presentVelocity: register(128, 4, twosComplement),
  presentPosition: register(132, 4, twosComplement),
  motionBlock: { address: 108, size: 12 },
  encodeMotion(goal, velocityUnits, accelerationUnits) {
    return Uint8Array.from([
      ...encodeRegister(PROFILE_ACCELERATION, accelerationUnits),
      ...encodeRegister(PROFILE_VELOCITY, velocityUnits),
      ...encodeRegister(GOAL_POSITION, goal),
    ]);
  },
  // Torque_Enable..Hardware_Error_Status, then Moving..Present_Position: two short reads beat one of 72 bytes.
  statusBlocks: [
    { address: 64, size: 7 },
    { address: 122, size: 14 },
  ],
  // Read 64..70 only when needed: every status packet's error byte has the
  // Alert bit (bit 7), set while Hardware_Error_Status is non-zero (e-Manual
  // Protocol 2.0 "Status Packet" → "Error", ROBOTIS-GIT/emanual
  // docs/en/dxl/protocol2.md @ 01179568a085cfc99bdad6e880e43fa871bd318a; the
  // X-series Hardware_Error_Status(70) entry: "Check Hardware Error Bit(0x80)
  // in a error field of Status Packet"). So the 122..135 reply of every cycle
  // already says whether a servo has a hardware error.
  healthBlock: 0,
  profileVelocityUnit: (RPM_UNIT / 60) * 4096,
  profileAccelerationUnit: (214.577 / 3600) * 4096,
  // Velocity_Limit defaults to a few hundred units; 32767 is the register's own ceiling.
  maxProfileVelocityUnits: 32767,
  maxProfileAccelerationUnits: 32767,
  presentVelocityUnit: (RPM_UNIT / 60) * 4096,
  setup: X_SERIES_SETUP,
  condition: X_SERIES_CONDITION,
};
