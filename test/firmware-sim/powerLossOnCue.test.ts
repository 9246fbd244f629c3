import { createConnection } from "node:net";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { BusSimulator } from "../../firmware-sim/bus/BusSimulator.js";
import { POWER_ON_GOAL_OFFSET } from "../../firmware-sim/bus/SimServo.js";
import { startBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan } from "../../firmware-sim/faults.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { parseSimArgs } from "../../firmware-sim/simOptions.js";
import { BUS_PROTOCOLS, protocolNamed } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";
import { ManualClock } from "./ManualClock.js";
import { AXES, axisIndex } from "./simulatedArmHarness.js";

const silent = pino({ level: "silent" });

describe.each(BUS_PROTOCOLS)("power loss on cue, bus %s (--power-loss-joint)", (name) => {
  function bus(powerLossJoints: readonly string[]) {
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
      powerLossJoints,
      powerLossMs: 400,
    });
    const replies: Uint8Array[] = [];
    sim.attach((bytes) => replies.push(bytes));
    const t = protocol.table;
    const send = (packet: Uint8Array): void => sim.receive(packet);
    /** Torque on holding where each servo is, then a goal for `id`: what a careful host does. */
    const armAndMove = (id: number, goal: number): void => {
      for (const s of sim.servos.values()) {
        send(protocol.write(s.axis.id, t.goalPosition.address, encode(t.goalPosition.size, Math.round(s.position))));
        send(protocol.write(s.axis.id, t.torqueEnable.address, Uint8Array.of(1)));
      }
      send(
        protocol.syncWrite(t.motionBlock.address, t.motionBlock.size, [{ id, data: t.encodeMotion(goal, 100, 20) }]),
      );
    };
    return { sim, clock, effects, protocol, replies, send, armAndMove };
  }

  it("the whole bus loses power half-way through the cued motion: it stops there, torque off, RAM at power-on values, position kept; deaf for the outage", () => {
    const { sim, clock, effects, replies, armAndMove } = bus(["elbow"]);
    const elbow = [...sim.servos.values()].find((s) => s.axis.name === "elbow")!;
    const start = elbow.position;
    armAndMove(elbow.axis.id, Math.round(start) + 800);
    expect(effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
    clock.advance(5000);
    const end = effects.events.find((e) => e.event === "motion_end");
    expect(end).toMatchObject({ outcome: "faulted" });
    const reboot = effects.events.find((e) => e.event === "reboot");
    expect(reboot?.joints).toEqual([...sim.servos.values()].map((s) => s.axis.name));
    // Stopped part-way, and held there: the encoder still reads where the horn is.
    expect(elbow.position).toBeGreaterThan(start + 50);
    expect(elbow.position).toBeLessThan(start + 750);
    for (const s of sim.servos.values()) {
      expect(s.torque).toBe(false);
      expect(sim.goalOf(s.axis.id)).toBe(Math.round(s.position) + POWER_ON_GOAL_OFFSET);
    }
    // Once: the next motion on the elbow runs to its end.
    const before = replies.length;
    armAndMove(elbow.axis.id, Math.round(elbow.position) - 300);
    clock.advance(5000);
    expect(
      effects.events.filter((e) => e.event === "motion_end").map((e) => e.event === "motion_end" && e.outcome),
    ).toEqual(["faulted", "reached"]);
    expect(replies.length).toBeGreaterThan(before);
  });

  it("answers nothing while the supply is off and for its boot, then answers again", () => {
    const { sim, clock, protocol, replies, send } = bus([]);
    const id = [...sim.servos.keys()][0]!;
    sim.powerLoss(400);
    send(protocol.ping(id));
    clock.advance(300);
    expect(replies).toHaveLength(0);
    clock.advance(200);
    send(protocol.ping(id));
    clock.advance(1);
    expect(replies.length).toBeGreaterThan(0);
  });
});

describe("power loss on cue, serial firmware (--power-loss-joint)", () => {
  it("reboots half-way through the cued motion, once: a new boot id, no memory of the action, deaf for the outage", () => {
    const clock = new ManualClock();
    const effects = new MemoryEffects();
    const arm = new SimulatedArm({
      axes: AXES,
      clock,
      faults: new FaultPlan(1),
      effects,
      motionTime: { kind: "profile" },
      logger: silent,
      powerLossJoints: ["wrist_3"],
      powerLossMs: 400,
    });
    const outages: number[] = [];
    arm.onPowerLoss((ms) => outages.push(ms));
    const boot = arm.bootId;
    const W3 = axisIndex("wrist_3");
    arm.move({ actionId: "cued", speed: 1, durationMs: 0, targets: [{ axis: W3, position: 1 }] });
    clock.advance(3000);
    expect(arm.bootId).not.toBe(boot);
    expect(outages).toEqual([400]);
    expect(effects.events.find((e) => e.event === "reboot")).toMatchObject({ interrupted: ["cued"] });
    expect(arm.query("cued", false).record.state).toBe("unknown");
    const stoppedAt = arm.positionsByName().wrist_3!;
    expect(stoppedAt).toBeGreaterThan(0.05);
    expect(stoppedAt).toBeLessThan(0.95);
    arm.move({ actionId: "again", speed: 1, durationMs: 0, targets: [{ axis: W3, position: 0 }] });
    clock.advance(3000);
    expect(arm.bootId).not.toBe(boot);
    expect(effects.events.filter((e) => e.event === "reboot")).toHaveLength(1);
  });

  it("is parsed from flags, and a name that is no axis is refused by code", () => {
    const parsed = parseSimArgs(["--link", "tcp", "--power-loss-joint", "wrist_3,elbow", "--power-loss-ms", "750"]);
    expect(parsed.kind === "options" && parsed.options).toMatchObject({
      powerLossJoints: ["wrist_3", "elbow"],
      powerLossMs: 750,
    });
    expect(parseSimArgs(["--power-loss-ms", "-3"]).kind).toBe("error");
    expect(
      () =>
        new SimulatedArm({
          axes: AXES,
          clock: new ManualClock(),
          faults: new FaultPlan(1),
          effects: new MemoryEffects(),
          motionTime: { kind: "profile" },
          logger: silent,
          powerLossJoints: ["wrist_9"],
        }),
    ).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID" }));
  });
});

describe("a link interruption on cue (--link tcp)", () => {
  it("drops the host, refuses connections for the outage, then listens again on the same port; the servos run on", async () => {
    const config = busTestConfig("feetech_sts");
    const sim = await startBusSimulator({
      bus: "feetech_sts",
      armConfig: config,
      link: "tcp",
      port: 0,
      seed: 1,
      effects: new MemoryEffects(),
    });
    try {
      const port = Number(new URL(sim.link).port);
      const host = createConnection(port, "127.0.0.1");
      await new Promise<void>((resolve, reject) => host.once("connect", resolve).once("error", reject));
      const dropped = new Promise<void>((resolve) => host.once("close", () => resolve()));
      await sim.interruptLink(400);
      await dropped;
      const refused = await connects(port);
      expect(refused).toBe(false);
      await new Promise((r) => setTimeout(r, 600));
      expect(await connects(port)).toBe(true);
    } finally {
      await sim.close();
    }
  });
});

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function encode(size: number, value: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (value >> (8 * i)) & 0xff;
  return out;
}
