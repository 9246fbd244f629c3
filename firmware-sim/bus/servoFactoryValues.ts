/**
 * What a simulated servo's registers hold when it leaves the factory, by
 * model number, in each register's own unit. The simulator starts every
 * servo with these so a host sees what a new servo would tell it.
 */
export interface ServoFactoryValues {
  /** Return_Delay_Time, 2 µs per unit. */
  readonly returnDelayTime: number;
  /** Status_Return_Level (Dynamixel) / Response_Status_Level (Feetech). */
  readonly statusReturnLevel: number;
  /** Moving_Threshold (0.229 rev/min), where the family has one. */
  readonly movingThreshold: number | undefined;
  /** Temperature_Limit, °C. */
  readonly temperatureLimit: number;
  /** Max / Min_Voltage_Limit, 0.1 V. */
  readonly maxVoltageLimit: number;
  readonly minVoltageLimit: number;
  /** Min / Max_Position_Limit, counts. */
  readonly minPositionLimit: number;
  readonly maxPositionLimit: number;
}

/**
 * DYNAMIXEL X-series EEPROM "Initial Value" columns (ROBOTIS e-Manual control
 * tables, ROBOTIS-GIT/emanual docs/en/dxl/x/): Return Delay Time(9) 250,
 * Status Return Level(68) 2, Max/Min Position Limit(48/52) 4,095/0 on every
 * model; then per model
 * - XL330-M077 / -M288 (xl330-m077.md @ 01ba9719, xl330-m288.md @ 028a13d2):
 *   Moving Threshold(24) 10, Temperature Limit(31) 70, Max/Min Voltage
 *   Limit(32/34) 70/35;
 * - XL430-W250 (xl430-w250.md @ 00a4b781): 10, 72, 140/60;
 * - XM430-W350 (xm430-w350.md @ 07fe860b): 10, 80, 160/95;
 * - XM540-W270 (xm540-w270.md @ 028a13d2): 10, 80, 160/95;
 * - XC430-W150 (xc430-w150.md @ 028a13d2): 20, 80, 160/60.
 */
const X_SERIES: Readonly<Record<number, ServoFactoryValues>> = (() => {
  const x = (
    movingThreshold: number,
    temperatureLimit: number,
    maxVoltageLimit: number,
    minVoltageLimit: number,
  ): ServoFactoryValues => ({
    returnDelayTime: 250,
    statusReturnLevel: 2,
    movingThreshold,
    temperatureLimit,
    maxVoltageLimit,
    minVoltageLimit,
    minPositionLimit: 0,
    maxPositionLimit: 4095,
  });
  const xl330 = x(10, 70, 70, 35);
  return {
    1190: xl330,
    1200: xl330,
    1060: x(10, 72, 140, 60),
    1020: x(10, 80, 160, 95),
    1120: x(10, 80, 160, 95),
    1070: x(20, 80, 160, 60),
  };
})();

/**
 * Feetech STS3215 memory table initial values (Feetech "STS3215 memory
 * table", FT-SMS-STS e-manual at doc.feetech.cn, the source LeRobot's
 * feetech/tables.py names): Return_Delay_Time(7) 0, Response_Status_Level(8)
 * 1, Min/Max angle limit(9/11) 0/4095, Max_Temperature_Limit(13) 70 °C,
 * Max/Min input voltage(14/15) 80/40 (8.0/4.0 V, the 7.4 V servo). LeRobot's
 * configure_motors comment says 250 for the return delay; it writes 0
 * whatever the servo held, so either way a LeRobot arm reads 0. The STS3250's
 * own table is not at hand: it is given the STS3215's.
 */
const STS3215: ServoFactoryValues = {
  returnDelayTime: 0,
  statusReturnLevel: 1,
  movingThreshold: undefined,
  temperatureLimit: 70,
  maxVoltageLimit: 80,
  minVoltageLimit: 40,
  minPositionLimit: 0,
  maxPositionLimit: 4095,
};

const BY_FAMILY: Readonly<
  Record<
    string,
    { readonly byModel: Readonly<Record<number, ServoFactoryValues>>; readonly otherwise: ServoFactoryValues }
  >
> = {
  dynamixel_x: { byModel: X_SERIES, otherwise: X_SERIES[1200]! },
  feetech_sts: { byModel: { 777: STS3215 }, otherwise: STS3215 },
};

/** The factory values of a servo of this family and model number (a model not listed: its family's common one). */
export function servoFactoryValues(family: string, modelNumber: number): ServoFactoryValues {
  const f = BY_FAMILY[family];
  if (!f) throw new Error(`no factory values for servo family ${family}`);
  return f.byModel[modelNumber] ?? f.otherwise;
}
