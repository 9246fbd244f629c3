/**
 * armbridge serial protocol, version 1: the messages. docs/serial-protocol.md
 * is the normative spec (byte layouts, framing, CRC); this file is its typed
 * mirror, shared by the bridge's serial transport and by firmware-sim.
 *
 * Every frame carries a sequence number. Host frames are answered by exactly
 * one reply frame (HELLO, ACK, NACK or ACTION) whose `ackSeq` names the host
 * frame; the device also streams STATUS frames unprompted. A host may re-send
 * a frame byte for byte (same seq, same action id) when its reply is lost;
 * the device answers a repeated seq with its original reply, never executes
 * a MOVE whose action id it has already seen, and refuses a MOVE addressed
 * to another boot than its current one.
 */

export const PROTOCOL_VERSION = 1;

/** Op codes on the wire. Keep in step with docs/serial-protocol.md. */
export const OP = {
  HELLO_REQ: 0x01,
  HELLO: 0x02,
  MOVE: 0x10,
  STOP: 0x11,
  QUERY_ACTION: 0x12,
  ACTION: 0x13,
  PING: 0x14,
  STATUS: 0x20,
  ACK: 0x7e,
  NACK: 0x7f,
} as const;

export type OpName = keyof typeof OP;

/** Device-side action states, as on the wire (u8). Same vocabulary as Transport's ArmActionState. */
export const WIRE_ACTION_STATE = {
  unknown: 0,
  executing: 1,
  reached: 2,
  stopped: 3,
  stalled: 4,
  rejected: 5,
  faulted: 6,
  voided: 7,
} as const;
export type WireActionState = keyof typeof WIRE_ACTION_STATE;

/** NACK reason codes (u8). */
export const NACK_CODE = {
  BAD_FRAME: 1,
  UNKNOWN_OP: 2,
  BAD_AXIS: 3,
  OUT_OF_LIMITS: 4,
  FAULTED: 5,
  BUSY: 6,
  VOIDED: 7,
  INTERNAL: 8,
  BOOT_MISMATCH: 9,
} as const;
export type NackCode = keyof typeof NACK_CODE;

export interface AxisInfo {
  readonly name: string;
  readonly kind: "joint" | "gripper";
  readonly min: number;
  readonly max: number;
  readonly maxVelocity: number;
  readonly maxAcceleration: number;
}

export interface WireActionRecord {
  readonly actionId: string;
  readonly state: WireActionState;
  /** true / false / undefined (device does not know) */
  readonly moved: boolean | undefined;
}

export interface AxisSample {
  readonly position: number;
  readonly velocity: number;
  readonly moving: boolean;
  readonly stalled: boolean;
}

/** Every frame's payload, keyed on `op`. */
export type Message =
  /** host → device: who are you? */
  | { readonly op: "HELLO_REQ"; readonly seq: number; readonly hostVersion: string }
  /** device → host: firmware identity, axes and limits; `bootId` changes on every reboot. */
  | {
      readonly op: "HELLO";
      readonly seq: number;
      readonly ackSeq: number;
      readonly firmwareVersion: string;
      readonly protocolVersion: number;
      readonly bootId: number;
      readonly statusRateHz: number;
      readonly watchdogMs: number;
      readonly axes: readonly AxisInfo[];
    }
  /**
   * host → device: move axes to absolute targets. `durationMs` 0 means "as
   * fast as `speed` × max velocity allows"; otherwise the motion is timed to
   * last that long. `expectBootId` is the boot the host believes the device
   * is in (non-zero); a device in another boot refuses the MOVE (NACK
   * BOOT_MISMATCH), so a re-sent MOVE can never run on a rebooted device.
   */
  | {
      readonly op: "MOVE";
      readonly seq: number;
      readonly actionId: string;
      readonly expectBootId: number;
      readonly speed: number;
      readonly durationMs: number;
      readonly targets: readonly { readonly axis: number; readonly position: number }[];
    }
  /** host → device: halt these axes (all when empty) and hold position. */
  | { readonly op: "STOP"; readonly seq: number; readonly axes: readonly number[] }
  /** host → device: what do you know of this action? With voidIfUnknown, an unknown id is recorded as voided. */
  | { readonly op: "QUERY_ACTION"; readonly seq: number; readonly actionId: string; readonly voidIfUnknown: boolean }
  /** device → host: the record of one action (reply to MOVE and QUERY_ACTION). */
  | {
      readonly op: "ACTION";
      readonly seq: number;
      readonly ackSeq: number;
      readonly record: WireActionRecord;
      readonly detail: string;
    }
  /** host → device: heartbeat; feeds the device's host-silence watchdog. */
  | { readonly op: "PING"; readonly seq: number }
  /** device → host, streamed: axis samples in HELLO order, faults, and the last N actions. */
  | {
      readonly op: "STATUS";
      readonly seq: number;
      readonly bootId: number;
      readonly deviceTimeMs: number;
      readonly axes: readonly AxisSample[];
      readonly faults: readonly string[];
      readonly actions: readonly WireActionRecord[];
    }
  /** device → host: the frame `ackSeq` was accepted (STOP, PING). */
  | { readonly op: "ACK"; readonly seq: number; readonly ackSeq: number }
  /** device → host: the frame `ackSeq` was refused; nothing it asked for happened. */
  | {
      readonly op: "NACK";
      readonly seq: number;
      readonly ackSeq: number;
      readonly code: NackCode;
      readonly reason: string;
    };

export type MessageOf<K extends Message["op"]> = Extract<Message, { op: K }>;

/** Host frames are answered; these are the ops a reply may carry. */
export const REPLY_OPS: Readonly<Record<Message["op"], boolean>> = {
  HELLO_REQ: false,
  HELLO: true,
  MOVE: false,
  STOP: false,
  QUERY_ACTION: false,
  ACTION: true,
  PING: false,
  STATUS: false,
  ACK: true,
  NACK: true,
};
