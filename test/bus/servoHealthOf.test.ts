import { describe, expect, it } from "vitest";
import { X_SERIES_TABLE } from "../../src/protocol/bus/dynamixel2/xSeriesTable.js";
import { STS_TABLE } from "../../src/protocol/bus/feetechSts/stsTable.js";
import type { ServoControlTable } from "../../src/protocol/bus/index.js";
import { judgeLoad, judgeTemperature, judgeVoltage } from "../../src/transport/bus/servoConditionLimits.js";
import { servoHealthOf } from "../../src/transport/bus/servoHealthOf.js";
import { newServoState, type ServoState } from "../../src/transport/bus/ServoState.js";

/** A servo whose register copy holds these bytes at these addresses, read (stamped) at t = 1000. */
function servoWith(
  table: ServoControlTable,
  bytes: Readonly<Record<number, readonly number[]>>,
  read: { status?: boolean; condition?: boolean; limits?: boolean } = {},
): ServoState {
  const s = newServoState(
    { name: "elbow", kind: "joint", id: 3, countsPerUnit: 651.9, zeroCount: 2048, gripLimit: undefined },
    table.statusBlocks.length,
  );
  for (const [address, b] of Object.entries(bytes)) s.memory.set(b, Number(address));
  if (read.status ?? true) s.stampMs = 1000;
  if (read.condition ?? true) s.conditionAt = 1000;
  if (read.limits ?? true) s.limitsAt = 1000;
  return s;
}

const XL430 = 1060;
const XL330_M288 = 1200;
const XM430 = 1020;

describe("decoding a servo's condition registers (golden bytes, vendor layouts)", () => {
  it.each([
    // Dynamixel X: Temperature_Limit 31, Max/Min_Voltage_Limit 32/34 (0.1 V), Present_Input_Voltage 144 (0.1 V), Present_Temperature 146.
    [
      "XL430 Present_Load -25.0 % (0xFF06 two's complement)",
      X_SERIES_TABLE,
      XL430,
      { 31: [72], 32: [140, 0], 34: [60, 0], 126: [0x06, 0xff], 144: [120, 0], 146: [41] },
      { temperature_c: 41, temperature_limit_c: 72, voltage_v: 12, voltage_min_v: 6, voltage_max_v: 14, load_pct: -25 },
    ],
    [
      "XL330 Present_Current 350 mA of Current_Limit 1750 mA (1 mA units)",
      X_SERIES_TABLE,
      XL330_M288,
      { 31: [70], 32: [70, 0], 34: [35, 0], 38: [0xd6, 0x06], 126: [0x5e, 0x01], 144: [50, 0], 146: [30] },
      { voltage_v: 5, voltage_min_v: 3.5, voltage_max_v: 7, current_ma: 350, load_pct: 20 },
    ],
    [
      "XM430 Present_Current -100 units × 2.69 mA of Current_Limit 1193",
      X_SERIES_TABLE,
      XM430,
      { 31: [80], 32: [160, 0], 34: [95, 0], 38: [0xa9, 0x04], 126: [0x9c, 0xff], 144: [121, 0], 146: [35] },
      { current_ma: -269, load_pct: -8.4 },
    ],
    // Feetech STS: Max_Temperature_Limit 13, Max/Min_Voltage_Limit 14/15 (0.1 V), Present_Load 60 (sign bit 10, 0.1 %), Present_Voltage 62, Present_Temperature 63.
    [
      "STS3215 Present_Load -30.0 % (bit 10 sign: 0x052C)",
      STS_TABLE,
      777,
      { 13: [70], 14: [80], 15: [40], 60: [0x2c, 0x05], 62: [74], 63: [45] },
      { temperature_c: 45, temperature_limit_c: 70, voltage_v: 7.4, voltage_min_v: 4, voltage_max_v: 8, load_pct: -30 },
    ],
    [
      "STS3215 Present_Load +12.5 %",
      STS_TABLE,
      777,
      { 13: [70], 14: [80], 15: [40], 60: [125, 0], 62: [74], 63: [45] },
      { load_pct: 12.5 },
    ],
  ] as const)("%s", (_what, table, model, bytes, expected) => {
    const h = servoHealthOf({ table, servo: servoWith(table, bytes), modelNumber: model });
    expect(h).toMatchObject({ axis: "elbow", servo_id: 3, hardware_errors: [], shut_down: false, ...expected });
  });

  it("a reading not given yet is absent, never 0; an unknown model reports no load", () => {
    const h = servoHealthOf({
      table: X_SERIES_TABLE,
      servo: servoWith(X_SERIES_TABLE, { 126: [10, 0] }, { status: false, condition: false, limits: false }),
      modelNumber: XL430,
    });
    for (const k of [
      "read_at",
      "temperature_c",
      "temperature_limit_c",
      "voltage_v",
      "voltage_min_v",
      "voltage_max_v",
      "load_pct",
      "current_ma",
    ])
      expect(h).not.toHaveProperty(k);
    expect(
      servoHealthOf({
        table: X_SERIES_TABLE,
        servo: servoWith(X_SERIES_TABLE, { 126: [10, 0] }),
        modelNumber: undefined,
      }),
    ).not.toHaveProperty("load_pct");
    // A current with no Current_Limit read yet has no share to give.
    const noCap = servoHealthOf({
      table: X_SERIES_TABLE,
      servo: servoWith(X_SERIES_TABLE, { 126: [10, 0] }, { limits: false }),
      modelNumber: XL330_M288,
    });
    expect(noCap.current_ma).toBe(10);
    expect(noCap).not.toHaveProperty("load_pct");
  });

  it.each([
    // Hardware_Error_Status (70): bit 0 input voltage, 2 overheating, 3 encoder, 4 electrical shock, 5 overload.
    [X_SERIES_TABLE, 70, 0b0010_0100, ["overheating", "overload"]],
    [X_SERIES_TABLE, 70, 0b0001_0001, ["input_voltage", "electrical_shock"]],
    // Feetech Status (65): 0 voltage, 1 angle sensor, 2 overheat, 3 overcurrent, 5 overload.
    [STS_TABLE, 65, 0b0000_1010, ["encoder", "overcurrent"]],
  ] as const)(
    "hardware-error bits become alarms that name the servo and say what to do (%#)",
    (table, address, bits, kinds) => {
      const s = servoWith(table, { [address]: [bits] });
      s.tripped = "whatever it tripped on";
      const h = servoHealthOf({ table, servo: s, modelNumber: undefined });
      expect(h.hardware_errors).toEqual(kinds);
      expect(h.shut_down).toBe(true);
      expect(h.alerts.map((a) => [a.kind, a.level, a.error])).toEqual(kinds.map((k) => ["hardware_error", "alarm", k]));
      for (const a of h.alerts) {
        expect(a.message).toMatch(/^servo 3 \(elbow\): .*; shut down, torque off until recovered$/);
        expect(a.advice.length).toBeGreaterThan(20);
      }
    },
  );

  it("an error that left the servo's torque on is not called a shutdown (a Dynamixel's input voltage is outside its default Shutdown)", () => {
    const s = servoWith(X_SERIES_TABLE, { 64: [1], 70: [0b1] });
    s.tripped = "input voltage error";
    const [alert] = servoHealthOf({ table: X_SERIES_TABLE, servo: s, modelNumber: XL430 }).alerts;
    expect(alert!.message).toBe(
      "servo 3 (elbow): input voltage outside its limits; no motion is sent to it until recovered",
    );
  });

  it("a Feetech whose Status bits cleared after a trip is still an alarm until it is recovered", () => {
    const s = servoWith(STS_TABLE, { 65: [0] });
    s.tripped = "overload";
    const h = servoHealthOf({ table: STS_TABLE, servo: s, modelNumber: 777 });
    expect(h.alerts).toEqual([
      expect.objectContaining({
        kind: "hardware_error",
        level: "alarm",
        message: "servo 3 (elbow): shut down on overload; torque off until recovered",
      }),
    ]);
  });

  it("warnings near the servo's own limits, alarms past them, worst first; an error's own alert is not repeated as a limit", () => {
    // 66 °C of a 70 °C limit, 6.3 V of a 6.0–14.0 V range, load 85 %.
    const near = servoHealthOf({
      table: X_SERIES_TABLE,
      servo: servoWith(X_SERIES_TABLE, {
        31: [70],
        32: [140, 0],
        34: [60, 0],
        126: [0x52, 0x03],
        144: [63, 0],
        146: [66],
      }),
      modelNumber: XL430,
    });
    expect(near.alerts.map((a) => [a.kind, a.level])).toEqual([
      ["temperature", "warning"],
      ["voltage", "warning"],
      ["load", "warning"],
    ]);
    expect(near.alerts[0]!.message).toBe("servo 3 (elbow): 66 °C, near its limit of 70 °C");
    // Past the voltage limit with the bit not (yet) set: an alarm of its own; at the temperature limit with the bit set: only the error.
    const past = servoHealthOf({
      table: X_SERIES_TABLE,
      servo: servoWith(X_SERIES_TABLE, { 31: [70], 32: [140, 0], 34: [60, 0], 70: [0b100], 144: [55, 0], 146: [71] }),
      modelNumber: XL430,
    });
    expect(past.alerts.map((a) => [a.kind, a.level])).toEqual([
      ["hardware_error", "alarm"],
      ["voltage", "alarm"],
    ]);
  });
});

describe("how a reading stands against a limit (shared with armbridge doctor)", () => {
  it.each([
    [59.9, 70, "inside"],
    [60, 70, "near"],
    [69, 70, "near"],
    [70, 70, "past"],
  ] as const)("temperature %s °C against %s °C: %s", (t, limit, standing) =>
    expect(judgeTemperature(t, limit)).toBe(standing),
  );
  it.each([
    [12, 6, 14, "inside"],
    [6.31, 6, 14, "inside"],
    [6.29, 6, 14, "near"],
    [13.4, 6, 14, "near"],
    // An STS3215 (7.4 V version) on its rated supply, against its factory 4.0–8.0 V: not near.
    [7.4, 4, 8, "inside"],
    [5.9, 6, 14, "past"],
    [14.1, 6, 14, "past"],
  ] as const)("voltage %s V against %s–%s V: %s", (v, lo, hi, standing) =>
    expect(judgeVoltage(v, lo, hi)).toBe(standing),
  );
  it.each([
    [79.9, "inside"],
    [-80, "near"],
    [100, "past"],
  ] as const)("load %s %%: %s", (p, standing) => expect(judgeLoad(p)).toBe(standing));
});
