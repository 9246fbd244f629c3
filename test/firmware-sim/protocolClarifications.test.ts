import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DeviceSession } from "../../firmware-sim/DeviceSession.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan, NO_FAULTS } from "../../firmware-sim/faults.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { FrameDecoder, encodeFrame, type Message, type MessageOf } from "../../src/protocol/serial/index.js";
import { ManualClock } from "./ManualClock.js";
import { AXES, axisIndex, makeArm } from "./simulatedArmHarness.js";

const PAN = axisIndex("shoulder_pan");
const ELBOW = axisIndex("elbow");
const WRIST = axisIndex("wrist_1");

// The points docs/serial-protocol.md settles for firmware authors, held against firmware-sim.
describe("serial protocol clarifications in firmware-sim", () => {
  it("§3.6: STATUS carries the most recently *updated* records, so a long action's end appears after more than 16 newer actions", () => {
    const { arm, clock } = makeArm();
    // About 15 s: 3 rad at a tenth of 2 rad/s.
    arm.move({ actionId: "long", speed: 0.1, durationMs: 0, targets: [{ axis: PAN, position: 3 }] });
    for (let i = 0; i < 20; i += 1) {
      const reply = arm.move({
        actionId: `short-${i}`,
        speed: 1,
        durationMs: 0,
        targets: [{ axis: ELBOW, position: i % 2 === 0 ? 1.05 : 1 }],
      });
      expect(reply).toMatchObject({ kind: "action", record: { state: "executing" } });
      clock.advance(400);
      expect(arm.query(`short-${i}`, false).record.state).toBe("reached");
    }
    expect(arm.query("long", false).record.state).toBe("executing");
    const ended: string[] = [];
    arm.onActionEnd((id) => ended.push(id));
    clock.advance(20_000);
    expect(ended).toEqual(["long"]);
    const carried = arm.statusActions();
    expect(carried).toHaveLength(16);
    // Newest update last: the long action ended after every short one.
    expect(carried.at(-1)).toEqual({ actionId: "long", state: "reached", moved: true });
  });

  it("§2.2: a MOVE to the present position (named at f32 precision) is accepted, ends reached, and reports moved=false", () => {
    const { arm, clock, effects } = makeArm();
    arm.move({ actionId: "there", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 0.3 }] });
    clock.advance(2000);
    // 0.3 is not a float32: the host can only send fround(0.3), 1.2e-8 away.
    expect(
      arm.move({ actionId: "again", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: Math.fround(0.3) }] }),
    ).toMatchObject({
      kind: "action",
      record: { state: "executing", moved: false },
    });
    clock.advance(100);
    expect(arm.query("again", false).record).toEqual({ actionId: "again", state: "reached", moved: false });
    expect(effects.events.filter((e) => e.action_id === "again").map((e) => e.event)).toEqual([
      "motion_start",
      "motion_end",
    ]);
  });

  it("§3.3: STOP naming one axis of a multi-axis action halts the whole action; every one of its axes brakes", () => {
    const { arm, clock, effects } = makeArm();
    arm.move({
      actionId: "both",
      speed: 1,
      durationMs: 0,
      targets: [
        { axis: PAN, position: 2 },
        { axis: WRIST, position: 1.5 },
      ],
    });
    clock.advance(500);
    arm.stop([WRIST], "stopped by host STOP");
    clock.advance(2000);
    expect(arm.query("both", false).record).toEqual({ actionId: "both", state: "stopped", moved: true });
    const end = effects.events.find((e) => e.event === "motion_end" && e.action_id === "both");
    expect(end).toMatchObject({ outcome: "stopped", joints: ["shoulder_pan", "wrist_1"] });
    const rest = (end as { to: Record<string, number> }).to;
    // Both came to rest short of their targets: the unnamed axis was not left running.
    expect(rest["shoulder_pan"]).toBeLessThan(2 - 0.01);
    expect(rest["wrist_1"]).toBeLessThan(1.5 - 0.01);
    expect(arm.samples().every((s) => !s.moving)).toBe(true);
  });

  it("§5: a braking action is executing; the watchdog firing while it brakes raises the fault but keeps the STOP's braking and detail", () => {
    const clock = new ManualClock();
    const logger = pino({ level: "silent" });
    const faults = new FaultPlan(3, NO_FAULTS);
    const arm = new SimulatedArm({
      axes: AXES,
      clock,
      faults,
      effects: new MemoryEffects(),
      motionTime: { kind: "profile" },
      logger,
    });
    const session = new DeviceSession({
      arm,
      clock,
      faults,
      firmwareVersion: "t",
      logger,
      statusHz: 0,
      watchdogMs: 100,
      ackDelayMs: 0,
    });
    const decoder = new FrameDecoder();
    const replies: Message[] = [];
    session.attach((bytes) => replies.push(...decoder.push(bytes).flatMap((r) => (r.ok ? [r.message] : []))));
    let seq = 0;
    const send = (m: Omit<Message, "seq">): void => session.receive(encodeFrame({ ...m, seq: ++seq } as Message));
    send({
      op: "MOVE",
      actionId: "brake",
      expectBootId: arm.bootId,
      speed: 1,
      durationMs: 0,
      targets: [{ axis: PAN, position: 3 }],
    } as Omit<MessageOf<"MOVE">, "seq">);
    // Fed every 50 ms until the axis cruises at 2 rad/s; braking from there takes 2/6 s, longer than the watchdog.
    for (let t = 0; t < 1000; t += 50) {
      clock.advance(50);
      send({ op: "PING" });
    }
    send({ op: "STOP", axes: [] } as Omit<MessageOf<"STOP">, "seq">);
    clock.advance(150);
    expect(arm.faults()).toEqual(["watchdog"]);
    expect(arm.query("brake", false).record.state).toBe("executing");
    clock.advance(400);
    expect(arm.query("brake", false)).toEqual({
      record: { actionId: "brake", state: "stopped", moved: true },
      detail: "stopped by host STOP",
    });
    session.close();
    arm.close();
  });
});
