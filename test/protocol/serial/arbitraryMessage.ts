import fc from "fast-check";
import {
  NACK_CODE,
  WIRE_ACTION_STATE,
  type Message,
  type NackCode,
  type WireActionState,
} from "../../../src/protocol/serial/index.js";

/** Generators of valid protocol v1 messages: every number representable as on the wire (f32, u16, u32). */
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const f32 = fc.float({ noNaN: true, noDefaultInfinity: true }).map((x) => Math.fround(x));
const text = fc.string({ maxLength: 60 });
const actionId = fc.stringMatching(/^[\x21-\x7e]{1,64}$/);
const state = fc.constantFrom(...(Object.keys(WIRE_ACTION_STATE) as WireActionState[]));
const nackCode = fc.constantFrom(...(Object.keys(NACK_CODE) as NackCode[]));
const record = fc.record({ actionId, state, moved: fc.constantFrom(true, false, undefined) });
const axisInfo = fc.record({
  name: text,
  kind: fc.constantFrom("joint" as const, "gripper" as const),
  min: f32,
  max: f32,
  maxVelocity: f32,
  maxAcceleration: f32,
});
const sample = fc.record({ position: f32, velocity: f32, moving: fc.boolean(), stalled: fc.boolean() });

export const arbitraryMessage: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ op: fc.constant("HELLO_REQ" as const), seq: u16, hostVersion: text }),
  fc.record({
    op: fc.constant("HELLO" as const),
    seq: u16,
    ackSeq: u16,
    firmwareVersion: text,
    protocolVersion: fc.integer({ min: 0, max: 255 }),
    bootId: u32,
    statusRateHz: u16,
    watchdogMs: u32,
    axes: fc.array(axisInfo, { maxLength: 8 }),
  }),
  fc.record({
    op: fc.constant("MOVE" as const),
    seq: u16,
    actionId,
    // Boot ids are never 0 on the wire (docs/serial-protocol.md §3.2).
    expectBootId: fc.integer({ min: 1, max: 0xffffffff }),
    speed: f32,
    durationMs: u32,
    targets: fc.array(fc.record({ axis: fc.integer({ min: 0, max: 255 }), position: f32 }), { maxLength: 8 }),
  }),
  fc.record({
    op: fc.constant("STOP" as const),
    seq: u16,
    axes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 8 }),
  }),
  fc.record({ op: fc.constant("QUERY_ACTION" as const), seq: u16, actionId, voidIfUnknown: fc.boolean() }),
  fc.record({ op: fc.constant("ACTION" as const), seq: u16, ackSeq: u16, record, detail: text }),
  fc.record({ op: fc.constant("PING" as const), seq: u16 }),
  fc.record({
    op: fc.constant("STATUS" as const),
    seq: u16,
    bootId: u32,
    deviceTimeMs: u32,
    axes: fc.array(sample, { maxLength: 8 }),
    faults: fc.array(text, { maxLength: 4 }),
    actions: fc.array(record, { maxLength: 16 }),
  }),
  fc.record({ op: fc.constant("ACK" as const), seq: u16, ackSeq: u16 }),
  fc.record({ op: fc.constant("NACK" as const), seq: u16, ackSeq: u16, code: nackCode, reason: text }),
);
