import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DeviceSession } from "../../firmware-sim/DeviceSession.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan, NO_FAULTS } from "../../firmware-sim/faults.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { FrameDecoder, encodeFrame, type Message } from "../../src/protocol/serial/index.js";
import { ManualClock } from "./ManualClock.js";
import { AXES } from "./simulatedArmHarness.js";

/**
 * The effects log is ground truth "written before the reply that reports it"
 * (docs/serial-protocol.md): a host that sees an action's end on the wire must
 * find its motion_end already logged.
 */
function harness() {
  const clock = new ManualClock();
  const logger = pino({ level: "silent" });
  const faults = new FaultPlan(5, NO_FAULTS);
  const effects = new MemoryEffects();
  const arm = new SimulatedArm({ axes: AXES, clock, faults, effects, motionTime: { kind: "fixed", ms: 1000 }, logger });
  const session = new DeviceSession({
    arm,
    clock,
    faults,
    firmwareVersion: "t",
    logger,
    statusHz: 100,
    watchdogMs: 0,
    ackDelayMs: 0,
  });
  const decoder = new FrameDecoder();
  /** For every terminal record seen on the wire: was its motion_end already in the log when the frame left? */
  const seenEnds: { actionId: string; state: string; logged: boolean }[] = [];
  session.attach((bytes) => {
    for (const r of decoder.push(bytes)) {
      if (!r.ok || r.message.op !== "STATUS") continue;
      for (const record of r.message.actions) {
        if (record.state === "executing") continue;
        const logged = effects.events.some((e) => e.event === "motion_end" && e.action_id === record.actionId);
        seenEnds.push({ actionId: record.actionId, state: record.state, logged });
      }
    }
  });
  const send = (m: Message): void => session.receive(encodeFrame(m));
  return { clock, arm, session, seenEnds, send };
}

const move = (h: { arm: SimulatedArm }, seq: number, actionId: string): Message => ({
  op: "MOVE",
  seq,
  actionId,
  expectBootId: h.arm.bootId,
  speed: 1,
  durationMs: 0,
  targets: [{ axis: 0, position: 0.3 }],
});

describe("firmware-sim effects log ordering", () => {
  it("logs motion_end before the STATUS that reports the action reached", () => {
    const h = harness();
    h.send(move(h, 1, "a-reach"));
    h.clock.advance(1500);
    h.session.close();
    expect(h.seenEnds.length).toBeGreaterThan(0);
    expect(h.seenEnds.filter((e) => !e.logged)).toEqual([]);
  });

  it("logs motion_end before the STATUS that reports a stop", () => {
    const h = harness();
    h.send(move(h, 1, "a-stop"));
    h.clock.advance(300);
    h.send({ op: "STOP", seq: 2, axes: [] });
    h.clock.advance(2000);
    h.session.close();
    expect(h.seenEnds.length).toBeGreaterThan(0);
    expect(h.seenEnds.filter((e) => !e.logged)).toEqual([]);
  });
});
