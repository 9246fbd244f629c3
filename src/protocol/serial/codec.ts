import { ArmbridgeError } from "../../errors.js";
import { cobsEncode } from "./cobs.js";
import { crc16CcittFalse } from "./crc.js";
import {
  NACK_CODE,
  OP,
  PROTOCOL_VERSION,
  WIRE_ACTION_STATE,
  type AxisInfo,
  type AxisSample,
  type Message,
  type MessageOf,
  type NackCode,
  type WireActionRecord,
  type WireActionState,
} from "./messages.js";
import { HEADER_BYTES, DecodeProblem, PayloadReader } from "./PayloadReader.js";
import { EncodeProblem, PayloadWriter } from "./PayloadWriter.js";
import { WIRE_LIMITS } from "./wireLimits.js";

/**
 * Encodes and decodes protocol v1 payloads (docs/serial-protocol.md):
 * [version u8][seq u16 LE][op u8][body][CRC-16/CCITT-FALSE u16 LE], framed
 * on the wire as COBS(payload) followed by 0x00.
 *
 * Decoding never throws: a peer on a noisy wire gets data back, not
 * exceptions. Encoding throws ARMB_ERR_FRAME_ENCODE, because a message that
 * cannot be put on the wire is a bug in the caller, not noise.
 */

export type DecodeResult =
  | { readonly ok: true; readonly message: Message }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Present when the CRC held, so the header can be trusted: the seq to NACK. */
      readonly seq?: number;
      /** Raw op byte, present with `seq`. */
      readonly op?: number;
    };

const CRC_BYTES = 2;

const OP_BY_CODE = new Map<number, Message["op"]>(
  Object.entries(OP).map(([name, code]) => [code, name as Message["op"]]),
);
const STATE_BY_CODE = new Map<number, WireActionState>(
  Object.entries(WIRE_ACTION_STATE).map(([name, code]) => [code, name as WireActionState]),
);
const NACK_BY_CODE = new Map<number, NackCode>(
  Object.entries(NACK_CODE).map(([name, code]) => [code, name as NackCode]),
);
const KIND_CODE: Readonly<Record<AxisInfo["kind"], number>> = { joint: 0, gripper: 1 };
const KIND_BY_CODE = new Map<number, AxisInfo["kind"]>([
  [0, "joint"],
  [1, "gripper"],
]);
const MOVED_UNKNOWN = 2;

// ---------------------------------------------------------------- writing

function writeRecord(w: PayloadWriter, record: WireActionRecord): void {
  w.actionId(record.actionId);
  w.u8(WIRE_ACTION_STATE[record.state], "record.state");
  w.u8(record.moved === undefined ? MOVED_UNKNOWN : record.moved ? 1 : 0, "record.moved");
}

type BodyWriters = { readonly [K in Message["op"]]: (w: PayloadWriter, m: MessageOf<K>) => void };

const WRITE_BODY: BodyWriters = {
  HELLO_REQ: (w, m) => w.str(m.hostVersion, "hostVersion"),
  HELLO: (w, m) => {
    w.u16(m.ackSeq, "ackSeq");
    w.u8(m.protocolVersion, "protocolVersion");
    w.u32(m.bootId, "bootId");
    w.u16(m.statusRateHz, "statusRateHz");
    w.u32(m.watchdogMs, "watchdogMs");
    w.str(m.firmwareVersion, "firmwareVersion");
    w.count(m.axes.length, WIRE_LIMITS.maxAxes, "axes");
    for (const axis of m.axes) {
      w.str(axis.name, "axis.name");
      w.u8(KIND_CODE[axis.kind], "axis.kind");
      w.f32(axis.min, "axis.min");
      w.f32(axis.max, "axis.max");
      w.f32(axis.maxVelocity, "axis.maxVelocity");
      w.f32(axis.maxAcceleration, "axis.maxAcceleration");
    }
  },
  MOVE: (w, m) => {
    w.actionId(m.actionId);
    if (m.expectBootId === 0)
      throw new EncodeProblem("expectBootId must be the device's non-zero boot id (from HELLO or STATUS), got 0");
    w.u32(m.expectBootId, "expectBootId");
    w.f32(m.speed, "speed");
    w.u32(m.durationMs, "durationMs");
    w.count(m.targets.length, WIRE_LIMITS.maxAxes, "targets");
    for (const t of m.targets) {
      w.u8(t.axis, "target.axis");
      w.f32(t.position, "target.position");
    }
  },
  STOP: (w, m) => {
    w.count(m.axes.length, WIRE_LIMITS.maxAxes, "axes");
    for (const axis of m.axes) w.u8(axis, "axis");
  },
  QUERY_ACTION: (w, m) => {
    w.actionId(m.actionId);
    w.u8(m.voidIfUnknown ? 1 : 0, "flags");
  },
  ACTION: (w, m) => {
    w.u16(m.ackSeq, "ackSeq");
    writeRecord(w, m.record);
    w.str(m.detail, "detail");
  },
  PING: () => undefined,
  STATUS: (w, m) => {
    w.u32(m.bootId, "bootId");
    w.u32(m.deviceTimeMs, "deviceTimeMs");
    w.count(m.axes.length, WIRE_LIMITS.maxAxes, "axes");
    for (const s of m.axes) {
      w.f32(s.position, "sample.position");
      w.f32(s.velocity, "sample.velocity");
      w.u8((s.moving ? 1 : 0) | (s.stalled ? 2 : 0), "sample.flags");
    }
    w.count(m.faults.length, WIRE_LIMITS.maxFaults, "faults");
    for (const f of m.faults) w.str(f, "fault");
    w.count(m.actions.length, WIRE_LIMITS.maxStatusActions, "actions");
    for (const r of m.actions) writeRecord(w, r);
  },
  ACK: (w, m) => w.u16(m.ackSeq, "ackSeq"),
  NACK: (w, m) => {
    w.u16(m.ackSeq, "ackSeq");
    w.u8(NACK_CODE[m.code], "code");
    w.str(m.reason, "reason");
  },
};

/** The payload of `message` (header, body, CRC), before COBS. Throws ARMB_ERR_FRAME_ENCODE. */
export function encodePayload(message: Message): Uint8Array {
  const w = new PayloadWriter();
  try {
    w.u8(PROTOCOL_VERSION, "version");
    w.u16(message.seq, "seq");
    w.u8(OP[message.op], "op");
    (WRITE_BODY[message.op] as (w: PayloadWriter, m: Message) => void)(w, message);
    return w.finish();
  } catch (error) {
    if (error instanceof EncodeProblem) {
      throw new ArmbridgeError("ARMB_ERR_FRAME_ENCODE", { op: message.op, reason: error.message }, { cause: error });
    }
    throw error;
  }
}

/** The bytes to put on the wire for `message`: COBS(payload) then 0x00. Throws ARMB_ERR_FRAME_ENCODE. */
export function encodeFrame(message: Message): Buffer {
  const encoded = cobsEncode(encodePayload(message));
  const frame = Buffer.allocUnsafe(encoded.length + 1);
  frame.set(encoded, 0);
  frame[encoded.length] = 0;
  return frame;
}

// ---------------------------------------------------------------- reading

function readRecord(r: PayloadReader): WireActionRecord {
  const actionId = r.actionId();
  const stateCode = r.u8("record.state");
  const state = STATE_BY_CODE.get(stateCode);
  if (!state) throw new DecodeProblem(`record.state ${stateCode} is not an action state`);
  const movedCode = r.u8("record.moved");
  if (movedCode > MOVED_UNKNOWN) throw new DecodeProblem(`record.moved ${movedCode} is not 0, 1 or 2`);
  return { actionId, state, moved: movedCode === MOVED_UNKNOWN ? undefined : movedCode === 1 };
}

function readAxisInfo(r: PayloadReader): AxisInfo {
  const name = r.str("axis.name");
  const kindCode = r.u8("axis.kind");
  const kind = KIND_BY_CODE.get(kindCode);
  if (!kind) throw new DecodeProblem(`axis.kind ${kindCode} is not 0 (joint) or 1 (gripper)`);
  return {
    name,
    kind,
    min: r.f32("axis.min"),
    max: r.f32("axis.max"),
    maxVelocity: r.f32("axis.maxVelocity"),
    maxAcceleration: r.f32("axis.maxAcceleration"),
  };
}

function readSample(r: PayloadReader): AxisSample {
  const position = r.f32("sample.position");
  const velocity = r.f32("sample.velocity");
  const flags = r.u8("sample.flags");
  if (flags > 3) throw new DecodeProblem(`sample.flags ${flags} has reserved bits set`);
  return { position, velocity, moving: (flags & 1) !== 0, stalled: (flags & 2) !== 0 };
}

function times<T>(n: number, read: () => T): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(read());
  return out;
}

type BodyReaders = { readonly [K in Message["op"]]: (r: PayloadReader, seq: number) => MessageOf<K> };

const READ_BODY: BodyReaders = {
  HELLO_REQ: (r, seq) => ({ op: "HELLO_REQ", seq, hostVersion: r.str("hostVersion") }),
  HELLO: (r, seq) => {
    const ackSeq = r.u16("ackSeq");
    const protocolVersion = r.u8("protocolVersion");
    const bootId = r.u32("bootId");
    const statusRateHz = r.u16("statusRateHz");
    const watchdogMs = r.u32("watchdogMs");
    const firmwareVersion = r.str("firmwareVersion");
    const axes = times(r.count(WIRE_LIMITS.maxAxes, "axes"), () => readAxisInfo(r));
    return { op: "HELLO", seq, ackSeq, firmwareVersion, protocolVersion, bootId, statusRateHz, watchdogMs, axes };
  },
  MOVE: (r, seq) => {
    const actionId = r.actionId();
    const expectBootId = r.u32("expectBootId");
    // Boot ids are never 0; a host that sends 0 has not read HELLO.
    if (expectBootId === 0) throw new DecodeProblem("MOVE expectBootId is 0; it must name the device's current boot");
    const speed = r.f32("speed");
    const durationMs = r.u32("durationMs");
    const targets = times(r.count(WIRE_LIMITS.maxAxes, "targets"), () => ({
      axis: r.u8("target.axis"),
      position: r.f32("target.position"),
    }));
    return { op: "MOVE", seq, actionId, expectBootId, speed, durationMs, targets };
  },
  STOP: (r, seq) => ({ op: "STOP", seq, axes: times(r.count(WIRE_LIMITS.maxAxes, "axes"), () => r.u8("axis")) }),
  QUERY_ACTION: (r, seq) => {
    const actionId = r.actionId();
    const flags = r.u8("flags");
    if (flags > 1) throw new DecodeProblem(`QUERY_ACTION flags ${flags} has reserved bits set`);
    return { op: "QUERY_ACTION", seq, actionId, voidIfUnknown: flags === 1 };
  },
  ACTION: (r, seq) => {
    const ackSeq = r.u16("ackSeq");
    const record = readRecord(r);
    return { op: "ACTION", seq, ackSeq, record, detail: r.str("detail") };
  },
  PING: (_r, seq) => ({ op: "PING", seq }),
  STATUS: (r, seq) => {
    const bootId = r.u32("bootId");
    const deviceTimeMs = r.u32("deviceTimeMs");
    const axes = times(r.count(WIRE_LIMITS.maxAxes, "axes"), () => readSample(r));
    const faults = times(r.count(WIRE_LIMITS.maxFaults, "faults"), () => r.str("fault"));
    const actions = times(r.count(WIRE_LIMITS.maxStatusActions, "actions"), () => readRecord(r));
    return { op: "STATUS", seq, bootId, deviceTimeMs, axes, faults, actions };
  },
  ACK: (r, seq) => ({ op: "ACK", seq, ackSeq: r.u16("ackSeq") }),
  NACK: (r, seq) => {
    const ackSeq = r.u16("ackSeq");
    const codeByte = r.u8("code");
    const code = NACK_BY_CODE.get(codeByte);
    if (!code) throw new DecodeProblem(`NACK code ${codeByte} is not a known code`);
    return { op: "NACK", seq, ackSeq, code, reason: r.str("reason") };
  },
};

/** Decodes one payload (already COBS-decoded, delimiter removed). Never throws. */
export function decodePayload(payload: Uint8Array): DecodeResult {
  if (payload.length < HEADER_BYTES + CRC_BYTES) {
    return {
      ok: false,
      reason: `payload of ${payload.length} byte(s) is shorter than header + CRC (${HEADER_BYTES + CRC_BYTES})`,
    };
  }
  if (payload.length > WIRE_LIMITS.maxPayloadBytes) {
    return { ok: false, reason: `payload of ${payload.length} bytes exceeds ${WIRE_LIMITS.maxPayloadBytes}` };
  }
  const end = payload.length - CRC_BYTES;
  const sent = (payload[end] ?? 0) | ((payload[end + 1] ?? 0) << 8);
  const computed = crc16CcittFalse(payload, 0, end);
  if (sent !== computed) {
    return { ok: false, reason: `CRC mismatch: frame says 0x${hex4(sent)}, bytes give 0x${hex4(computed)}` };
  }
  const version = payload[0] ?? 0;
  const seq = (payload[1] ?? 0) | ((payload[2] ?? 0) << 8);
  const opCode = payload[3] ?? 0;
  if (version !== PROTOCOL_VERSION) {
    return {
      ok: false,
      reason: `protocol version ${version} is not supported (this peer speaks ${PROTOCOL_VERSION})`,
      seq,
      op: opCode,
    };
  }
  const op = OP_BY_CODE.get(opCode);
  if (!op) return { ok: false, reason: `unknown op 0x${opCode.toString(16).padStart(2, "0")}`, seq, op: opCode };
  const reader = new PayloadReader(payload, end);
  try {
    const message = (READ_BODY[op] as (r: PayloadReader, seq: number) => Message)(reader, seq);
    reader.done();
    return { ok: true, message };
  } catch (error) {
    if (error instanceof DecodeProblem) return { ok: false, reason: `${op}: ${error.message}`, seq, op: opCode };
    return { ok: false, reason: `${op}: ${String(error)}`, seq, op: opCode };
  }
}

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
}
