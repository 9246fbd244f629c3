import { afterEach, describe, expect, it } from "vitest";
import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { parseSimArgs } from "../../firmware-sim/simOptions.js";
import { BUS_PROTOCOLS } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";

// firmware-sim's servos report their condition in their own registers and
// protect themselves as the real ones do: past Temperature_Limit the
// overheating bit and torque off (a Dynamixel latches it until a REBOOT, a
// Feetech's Status bit follows the temperature); outside the voltage limits
// the input-voltage bit, torque kept.

let sims: RunningBusSimulator[] = [];
afterEach(async () => {
  for (const s of sims) await s.close();
  sims = [];
});

describe("armbridge-sim servo condition flags", () => {
  it("parses --servo-temperature, --heat-joint and --supply-voltage with --bus, and refuses them without it or malformed", () => {
    expect(
      parseSimArgs([
        "--bus",
        "dynamixel_2",
        "--servo-temperature",
        "elbow=64,wrist_1=30.5",
        "--heat-joint",
        "elbow",
        "--supply-voltage",
        "11.1",
      ]),
    ).toMatchObject({
      kind: "options",
      options: { servoTemperatures: { elbow: 64, wrist_1: 30.5 }, heatJoints: ["elbow"], supplyVoltage: 11.1 },
    });
    expect(parseSimArgs(["--heat-joint", "elbow"])).toMatchObject({
      kind: "error",
      message: expect.stringMatching(/--heat-joint needs --bus/),
    });
    expect(parseSimArgs(["--bus", "feetech_sts", "--servo-temperature", "elbow"])).toMatchObject({
      kind: "error",
      message: expect.stringMatching(/AXIS=CELSIUS/),
    });
    expect(parseSimArgs(["--bus", "feetech_sts", "--supply-voltage", "0"])).toMatchObject({
      kind: "error",
      message: expect.stringMatching(/--supply-voltage/),
    });
  });

  it("names an axis that is not on the bus", async () => {
    await expect(
      startBusSimulator({
        bus: "dynamixel_2",
        armConfig: busTestConfig("dynamixel_2"),
        link: "tcp",
        port: 0,
        effects: new MemoryEffects(),
        heatJoints: ["nose"],
      }),
    ).rejects.toMatchObject({ code: "ARMB_ERR_CONFIG_INVALID" });
  });
});

describe.each(BUS_PROTOCOLS)("a %s servo's own protections", (protocol) => {
  it("overheating trips it (torque off, bit set); cooling clears a Feetech's bit but not a Dynamixel's latch; a supply outside its limits sets the input-voltage bit with torque kept", async () => {
    const effects = new MemoryEffects();
    const sim = await startBusSimulator({
      bus: protocol,
      armConfig: busTestConfig(protocol),
      link: "tcp",
      port: 0,
      effects,
      servoTemperatures: { wrist_1: 75 },
    });
    sims.push(sim);
    const table = sim.bus.all[0]!.table;
    const servo = (axis: string) => sim.bus.all.find((s) => s.axis.name === axis)!;
    const OVERHEATING = 1 << 2;
    const INPUT_VOLTAGE = 1 << 0;
    // Started past its limit: tripped from power-on, and it reads what it is.
    expect(servo("wrist_1").hardwareError).toBe(OVERHEATING);
    servo("wrist_1").refresh(0);
    expect(servo("wrist_1").get(table.setup.presentTemperature)).toBe(75);

    servo("elbow").set(table.torqueEnable, 1);
    sim.bus.setCondition("elbow", { temperature: 71 });
    expect(servo("elbow").hardwareError & OVERHEATING).toBe(OVERHEATING);
    expect(servo("elbow").torque).toBe(false);
    sim.bus.setCondition("elbow", { temperature: 50 });
    expect(servo("elbow").hardwareError & OVERHEATING).toBe(protocol === "dynamixel_2" ? OVERHEATING : 0);

    servo("shoulder_pan").set(table.torqueEnable, 1);
    const nominal = servo("shoulder_pan").voltage;
    sim.bus.setSupplyVoltage(nominal * 0.5);
    expect(servo("shoulder_pan").hardwareError).toBe(INPUT_VOLTAGE);
    expect(servo("shoulder_pan").torque).toBe(true);
    servo("shoulder_pan").refresh(0);
    expect(servo("shoulder_pan").get(table.setup.presentVoltage)).toBe(
      Math.round((nominal * 0.5) / table.setup.voltageUnit),
    );
    sim.bus.setSupplyVoltage(nominal);
    expect(servo("shoulder_pan").hardwareError).toBe(0);
    expect(effects.events.filter((e) => e.event === "motion_start")).toEqual([]);
  });
});
