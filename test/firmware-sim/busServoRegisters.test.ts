import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { BusSimulator } from "../../firmware-sim/bus/BusSimulator.js";
import type { SimServo } from "../../firmware-sim/bus/SimServo.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan } from "../../firmware-sim/faults.js";
import {
  decodeRegister,
  encodeRegister,
  protocolNamed,
  type BusProtocolName,
  type Register,
  type StatusReply,
} from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";
import { ManualClock } from "./ManualClock.js";

const silent = pino({ level: "silent" });

/**
 * The simulated servos hold what the vendors' tables document, so a host
 * written against DynamixelSDK / the SCServo SDK (as LeRobot calls them)
 * sees on the simulator what it would see on a servo. Each expected value
 * is the vendor's (cited in firmware-sim/bus/servoFactoryValues.ts and the
 * family set-up tables).
 */
function bus(name: BusProtocolName, modelNumber?: number) {
  const clock = new ManualClock();
  const effects = new MemoryEffects();
  const protocol = protocolNamed(name);
  const sim = new BusSimulator({
    config: busTestConfig(name),
    protocol,
    clock,
    faults: new FaultPlan(1),
    effects,
    logger: silent,
    ackDelayMs: 0,
    ...(modelNumber === undefined ? {} : { modelNumber }),
  });
  const decoder = protocol.createDecoder();
  const replies: StatusReply[] = [];
  sim.attach((bytes) => {
    for (const p of decoder.push(bytes)) {
      const r = protocol.statusOf(p);
      if (r) replies.push(r);
    }
  });
  const t = protocol.table;
  const elbow = [...sim.servos.values()].find((s) => s.axis.name === "elbow")!;
  const id = elbow.axis.id;
  /** A write instruction to the elbow's servo; its status packet, if it sent one. */
  const write = (reg: Register, value: number): StatusReply | undefined => {
    const before = replies.length;
    sim.receive(protocol.write(id, reg.address, encodeRegister(reg, value)));
    return replies.slice(before).find((r) => r.id === id);
  };
  const read = (reg: Register): number | undefined => {
    const before = replies.length;
    sim.receive(protocol.read(id, reg.address, reg.size));
    const r = replies.slice(before).find((x) => x.id === id);
    return r ? decodeRegister(reg, r.data) : undefined;
  };
  /** Torque on holding the present position (what a careful host does), then a goal by sync write, as the transport sends motions. */
  const holdThenMove = (goal: number): void => {
    write(t.goalPosition, read(t.presentPosition)!);
    write(t.torqueEnable, 1);
    sim.receive(
      protocol.syncWrite(t.motionBlock.address, t.motionBlock.size, [{ id, data: t.encodeMotion(goal, 200, 20) }]),
    );
    clock.advance(10_000);
  };
  const starts = (): number => effects.events.filter((e) => e.event === "motion_start").length;
  return { sim, clock, effects, protocol, t, elbow, write, read, holdThenMove, starts };
}

const counts = (s: SimServo): number => Math.round(s.position);

describe("factory values a new servo reports", () => {
  // Return delay (2 µs), status return level, moving threshold, temperature limit (°C), max/min voltage (0.1 V), min/max position.
  const cases: readonly [string, BusProtocolName, number, readonly (number | undefined)[]][] = [
    ["XL330-M288 (e-Manual)", "dynamixel_2", 1200, [250, 2, 10, 70, 70, 35, 0, 4095]],
    ["XL430-W250 (e-Manual)", "dynamixel_2", 1060, [250, 2, 10, 72, 140, 60, 0, 4095]],
    ["XM430-W350 (e-Manual)", "dynamixel_2", 1020, [250, 2, 10, 80, 160, 95, 0, 4095]],
    ["STS3215 (Feetech memory table)", "feetech_sts", 777, [0, 1, undefined, 70, 80, 40, 0, 4095]],
  ];
  it.each(cases)("%s", (_model, name, modelNumber, expected) => {
    const { t, read } = bus(name, modelNumber);
    const s = t.setup;
    const got = [
      s.returnDelayTime,
      s.statusReturnLevel.register,
      s.movingThreshold,
      s.temperatureLimit,
      s.maxVoltageLimit,
      s.minVoltageLimit,
      s.minPositionLimit,
      s.maxPositionLimit,
    ].map((reg) => (reg ? read(reg) : undefined));
    expect(got).toEqual(expected);
  });

  it("a Dynamixel's Status Return Level is RAM: back at 2 after a power cycle, and at 1 it answers reads but not writes", () => {
    const { sim, t, clock, elbow, write, read } = bus("dynamixel_2");
    expect(write(t.setup.statusReturnLevel.register, 1)).toBeDefined();
    expect(write(t.setup.returnDelayTime, 0)).toBeUndefined();
    expect(read(t.setup.returnDelayTime)).toBe(0);
    sim.powerCycle(elbow.axis.id);
    clock.advance(1000);
    expect(read(t.setup.statusReturnLevel.register)).toBe(2);
  });
});

describe.each(["dynamixel_2", "feetech_sts"] as const)("Homing_Offset, %s", (name) => {
  // Dynamixel: Present_Position = actual + offset; Feetech: actual − offset (LeRobot's _get_half_turn_homings of each).
  const sign = name === "dynamixel_2" ? 1 : -1;

  it("shifts Present_Position by the vendor's sign, and a goal is read in that frame: the horn goes where the host meant", () => {
    const { t, elbow, write, read, holdThenMove, effects } = bus(name);
    const actual = counts(elbow);
    expect(read(t.presentPosition)).toBe(actual);
    expect(write(t.setup.homingOffset, 300)?.error ?? 0).toBe(0);
    expect(read(t.setup.homingOffset)).toBe(300);
    expect(read(t.presentPosition)).toBe(actual + sign * 300);

    // The goal the host writes is in the offset frame: 400 counts past what it reads is 400 counts of true travel.
    holdThenMove(actual + sign * 300 + 400);
    const end = effects.events.find((e) => e.event === "motion_end");
    expect(end?.outcome).toBe("reached");
    expect(counts(elbow)).toBe(actual + 400);
    expect(read(t.presentPosition)).toBe(actual + sign * 300 + 400);
  });
});

describe("a goal outside Min/Max_Position_Limit", () => {
  it("Dynamixel X refuses it with a Data Limit Error and keeps its goal: nothing moves; a goal inside still moves", () => {
    const { t, protocol, elbow, write, read, holdThenMove, starts, sim } = bus("dynamixel_2");
    const at = counts(elbow);
    expect(write(t.setup.maxPositionLimit, at + 100)?.error ?? 0).toBe(0);
    holdThenMove(at + 500);
    expect(starts()).toBe(0);
    expect(counts(elbow)).toBe(at);
    const refused = write(t.goalPosition, at + 500);
    expect(protocol.statusErrorNames(refused?.error ?? 0)).toEqual(["data limit error"]);
    expect(sim.goalOf(elbow.axis.id)).toBe(at);
    expect(read(t.setup.minPositionLimit)).toBe(0);
    holdThenMove(at + 80);
    expect(starts()).toBe(1);
    expect(counts(elbow)).toBe(at + 80);
  });

  it("Feetech STS goes no further than the limit", () => {
    const { t, elbow, write, holdThenMove, effects } = bus("feetech_sts");
    const at = counts(elbow);
    write(t.setup.maxPositionLimit, at + 100);
    holdThenMove(at + 500);
    expect(effects.events.find((e) => e.event === "motion_end")?.outcome).toBe("reached");
    expect(counts(elbow)).toBe(at + 100);
  });
});
