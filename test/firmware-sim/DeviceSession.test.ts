import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DeviceSession, type DeviceSessionOptions } from "../../firmware-sim/DeviceSession.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan, NO_FAULTS, type FaultRates } from "../../firmware-sim/faults.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { FrameDecoder, encodeFrame, type DecodeResult, type Message } from "../../src/protocol/serial/index.js";
import { ManualClock } from "./ManualClock.js";
import { AXES } from "./simulatedArmHarness.js";

/** firmware-sim's session over an in-memory byte stream with a stepped clock. */
function harness(options: { rates?: Partial<FaultRates>; session?: Partial<DeviceSessionOptions> } = {}) {
  const clock = new ManualClock();
  const logger = pino({ level: "silent" });
  const faults = new FaultPlan(5, { ...NO_FAULTS, ...options.rates });
  const effects = new MemoryEffects();
  const arm = new SimulatedArm({ axes: AXES, clock, faults, effects, motionTime: { kind: "fixed", ms: 1000 }, logger });
  const session = new DeviceSession({
    arm,
    clock,
    faults,
    firmwareVersion: "t",
    logger,
    statusHz: 0,
    watchdogMs: 0,
    ackDelayMs: 0,
    ...options.session,
  });
  const decoder = new FrameDecoder();
  const results: DecodeResult[] = [];
  const bytesOut: number[] = [];
  session.attach((bytes) => {
    bytesOut.push(bytes.length);
    results.push(...decoder.push(bytes));
  });
  const messages = (): Message[] => results.flatMap((r) => (r.ok ? [r.message] : []));
  const replies = (): Message[] => messages().filter((m) => m.op !== "STATUS");
  const send = (m: Message): void => session.receive(encodeFrame(m));
  return { clock, arm, session, effects, results, messages, replies, send, bytesOut };
}

const move = (h: { arm: SimulatedArm }, seq: number, actionId: string, position = 1): Message => ({
  op: "MOVE",
  seq,
  actionId,
  expectBootId: h.arm.bootId,
  speed: 1,
  durationMs: 0,
  targets: [{ axis: 0, position }],
});

describe("DeviceSession", () => {
  it("treats a known seq with different bytes as a new frame", () => {
    const h = harness();
    h.send(move(h, 1, "a"));
    h.send(move(h, 1, "b", -1));
    expect(h.replies().map((m) => (m.op === "ACTION" ? m.record.actionId : m.op))).toEqual(["a", "NACK"]);
    expect(h.replies()[1]).toMatchObject({ code: "BUSY" });
  });

  it("forgets its reply cache in a reboot, but the action id guard does not depend on it", () => {
    const h = harness();
    h.send(move(h, 1, "a"));
    h.clock.advance(2000);
    h.arm.reboot();
    h.clock.advance(100);
    h.send({ op: "QUERY_ACTION", seq: 2, actionId: "a", voidIfUnknown: false });
    expect(h.replies().at(-1)).toMatchObject({ op: "ACTION", record: { state: "unknown", moved: undefined } });
  });

  it("refuses a MOVE resent byte for byte after a reboot with NACK BOOT_MISMATCH, not from a stale reply cache, and runs it only once", () => {
    const h = harness();
    const original = move(h, 7, "ran-before-reboot");
    h.send(original);
    expect(h.replies().at(-1)).toMatchObject({ op: "ACTION", ackSeq: 7, record: { state: "executing" } });
    h.clock.advance(2000);
    h.arm.reboot();
    h.clock.advance(100);
    h.send(original);
    expect(h.replies().at(-1)).toMatchObject({ op: "NACK", ackSeq: 7, code: "BOOT_MISMATCH" });
    // Nothing recorded either: the new boot still does not know the id.
    h.send({ op: "QUERY_ACTION", seq: 8, actionId: "ran-before-reboot", voidIfUnknown: false });
    expect(h.replies().at(-1)).toMatchObject({ op: "ACTION", record: { state: "unknown" } });
    const forId = h.effects.events.filter((e) => e.action_id === "ran-before-reboot").map((e) => e.event);
    expect(forId).toEqual(["motion_start", "motion_end"]);
  });

  it("is deaf while booting after a reboot", () => {
    const h = harness();
    h.arm.reboot();
    h.send({ op: "PING", seq: 1 });
    h.clock.advance(60);
    h.send({ op: "PING", seq: 2 });
    expect(h.replies()).toMatchObject([{ op: "ACK", ackSeq: 2 }]);
  });

  it("streams STATUS at the configured rate and not during a seeded freeze", () => {
    const h = harness({ session: { statusHz: 100 }, rates: { freezeRate: 1 } });
    h.clock.advance(100);
    expect(h.messages().filter((m) => m.op === "STATUS")).toHaveLength(10);
    h.send(move(h, 1, "frozen"));
    h.clock.advance(150);
    expect(h.messages().filter((m) => m.op === "STATUS")).toHaveLength(10);
    h.clock.advance(2000);
    expect(h.messages().filter((m) => m.op === "STATUS").length).toBeGreaterThan(10);
    h.session.close();
    expect(h.clock.pendingTimers).toBe(0);
  });

  it("delays replies by --ack-delay-ms, in order", () => {
    const h = harness({ session: { ackDelayMs: 30 } });
    h.send({ op: "PING", seq: 1 });
    h.send({ op: "PING", seq: 2 });
    h.clock.advance(29);
    expect(h.replies()).toEqual([]);
    h.clock.advance(1);
    expect(h.replies().map((m) => (m.op === "ACK" ? m.ackSeq : -1))).toEqual([1, 2]);
  });

  it("with --late-reply-rate 1 acts on a MOVE at once but answers late; the host's re-sent copy is answered from the reply cache and runs nothing", () => {
    const h = harness({ rates: { lateReplyRate: 1 }, session: { lateReplyMs: 300 } });
    const frame = move(h, 7, "late-1");
    h.send(frame);
    // Acted on at once: the motion started before any reply left.
    expect(h.effects.events.filter((e) => e.event === "motion_start")).toHaveLength(1);
    h.clock.advance(250);
    expect(h.replies()).toEqual([]);
    // The host's ACK timeout passed: it re-sends the very same frame.
    h.send(frame);
    h.clock.advance(50);
    expect(h.replies()).toMatchObject([{ op: "ACTION", ackSeq: 7 }]);
    h.clock.advance(300);
    expect(h.replies()).toMatchObject([
      { op: "ACTION", ackSeq: 7 },
      { op: "ACTION", ackSeq: 7 },
    ]);
    expect(h.effects.events.filter((e) => e.event === "motion_start" || e.event === "duplicate_refused")).toMatchObject(
      [{ event: "motion_start", action_id: "late-1" }],
    );
  });

  it("without --late-reply-rate, replies are on time", () => {
    const h = harness();
    h.send({ op: "PING", seq: 1 });
    expect(h.replies()).toMatchObject([{ op: "ACK", ackSeq: 1 }]);
  });

  it("paces output as a UART with --baud", () => {
    const h = harness({ session: { baud: 9600 } });
    h.send({ op: "PING", seq: 1 });
    // An ACK is 10 bytes on the wire (8 payload, 1 COBS, 1 delimiter): 100 bits at 9600 baud = 10.4 ms.
    h.clock.advance(10);
    expect(h.replies()).toEqual([]);
    h.clock.advance(1);
    expect(h.replies()).toMatchObject([{ op: "ACK", ackSeq: 1 }]);
  });

  it("with --drop-rate 1 hears nothing and so answers nothing", () => {
    const h = harness({ rates: { dropRate: 1 } });
    h.send({ op: "PING", seq: 1 });
    h.send(move(h, 2, "lost"));
    expect(h.results).toEqual([]);
    expect(h.effects.events).toEqual([]);
  });

  it("with --corrupt-rate 1 damages every frame so that the CRC catches it", () => {
    const h = harness({ rates: { corruptRate: 1 }, session: { statusHz: 100 } });
    h.clock.advance(200);
    expect(h.results.length).toBeGreaterThan(0);
    expect(h.results.every((r) => !r.ok)).toBe(true);
  });

  it("ignores device ops and garbage between frames without losing the next frame", () => {
    const h = harness();
    h.session.receive(Buffer.from([0xff, 0xfe, 0x01]));
    h.session.receive(Buffer.concat([Buffer.from([0x00]), encodeFrame({ op: "PING", seq: 4 })]));
    h.send({ op: "ACK", seq: 5, ackSeq: 1 });
    expect(h.replies()).toMatchObject([
      { op: "ACK", ackSeq: 4 },
      { op: "NACK", ackSeq: 5, code: "UNKNOWN_OP" },
    ]);
  });

  it("refuses STOP of an axis that does not exist and stops nothing", () => {
    const h = harness();
    h.send(move(h, 1, "keep"));
    h.send({ op: "STOP", seq: 2, axes: [0, 42] });
    expect(h.replies().at(-1)).toMatchObject({ op: "NACK", code: "BAD_AXIS" });
    expect(h.arm.activeActionIds()).toEqual(["keep"]);
  });
});
