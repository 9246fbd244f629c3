import { actuatorsOf } from "../../../src/config/actuators.js";
import type { ArmConfig } from "../../../src/config/ArmConfig.js";
import type { MemoryDeviceEnd } from "../../../src/transport/link/MemoryLink.js";
import {
  FrameDecoder,
  PROTOCOL_VERSION,
  encodeFrame,
  type AxisInfo,
  type Message,
  type MessageOf,
  type NackCode,
  type WireActionRecord,
  type WireActionState,
} from "../../../src/protocol/serial/index.js";

export interface ReceivedFrame {
  readonly bytes: Uint8Array;
  readonly message: Message;
}

type HostMessage = MessageOf<"HELLO_REQ" | "MOVE" | "STOP" | "QUERY_ACTION" | "PING">;

/**
 * A scripted device on the far end of an in-memory link: it speaks protocol
 * v1 like the firmware (reply cache by seq, de-duplication by action id,
 * boot check on MOVE, voiding) but its motions end only when the test says so, and the test can
 * lose replies, refuse moves, reboot it or pull the plug.
 */
export class ScriptedDevice {
  /** Every frame the host sent, in order, with its exact bytes. */
  readonly received: ReceivedFrame[] = [];
  /** How many times each action id started a motion (must never exceed 1). */
  readonly executions = new Map<string, number>();
  readonly records = new Map<string, WireActionRecord>();
  /** Action ids of MOVE frames refused with NACK BOOT_MISMATCH (addressed to another boot). */
  readonly bootMismatches: string[] = [];
  bootId = 1;
  watchdogMs = 1000;
  axes: AxisInfo[];
  /** Replies to lose, per op of the host frame, counted down. */
  readonly loseReplies = new Map<HostMessage["op"], number>();
  /** When set, MOVE frames are answered with this NACK. */
  nackMoves: { code: NackCode; reason: string } | undefined;
  /** Called with each host frame as it arrives, before the device handles it (e.g. to reboot just before a resend lands). */
  beforeFrame: ((message: HostMessage) => void) | undefined;
  /** While true, the device hears frames but never answers (a wedged UART). */
  mute = false;
  /** While false, no STATUS is streamed (an MCU booting, or a frozen stream). */
  streamStatus = true;
  /** While false, STATUS frames carry no action records (as when more than N actions ran since). */
  reportActionsInStatus = true;

  private readonly decoder = new FrameDecoder();
  private readonly replyCache = new Map<number, Uint8Array>();
  private seq = 0;
  private statusTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: (() => void)[];
  private positions: number[];

  constructor(
    readonly end: MemoryDeviceEnd,
    config: ArmConfig,
    private readonly statusIntervalMs = 20,
  ) {
    this.axes = actuatorsOf(config).map((a) => ({
      name: a.name,
      kind: a.kind,
      min: a.min,
      max: a.max,
      maxVelocity: a.maxVelocity,
      maxAcceleration: a.maxAcceleration,
    }));
    this.positions = actuatorsOf(config).map((a) => a.home);
    this.unsubscribe = [end.onData((chunk) => this.onBytes(chunk))];
    this.statusTimer = setInterval(() => this.sendStatus(), this.statusIntervalMs);
  }

  stop(): void {
    if (this.statusTimer !== undefined) clearInterval(this.statusTimer);
    this.statusTimer = undefined;
    for (const u of this.unsubscribe) u();
  }

  framesOf<K extends HostMessage["op"]>(op: K): (ReceivedFrame & { message: MessageOf<K> })[] {
    return this.received.filter((f): f is ReceivedFrame & { message: MessageOf<K> } => f.message.op === op);
  }

  /** Ends a motion as the firmware would, seen on the next STATUS. */
  finish(actionId: string, state: WireActionState): void {
    const record = this.records.get(actionId);
    if (!record) throw new Error(`no action ${actionId}`);
    this.records.set(actionId, { ...record, state, moved: state !== "rejected" });
  }

  /** Power-cycles the device: memory of actions and replies is lost, the boot id changes. */
  reboot(): void {
    this.bootId += 1;
    this.records.clear();
    this.replyCache.clear();
  }

  writeRaw(bytes: Uint8Array): void {
    this.end.write(bytes);
  }

  sendStatus(): void {
    if (this.mute || !this.streamStatus) return;
    this.send({
      op: "STATUS",
      seq: this.nextSeq(),
      bootId: this.bootId,
      deviceTimeMs: 0,
      axes: this.positions.map((position) => ({ position, velocity: 0, moving: false, stalled: false })),
      faults: [],
      actions: this.reportActionsInStatus ? [...this.records.values()].slice(-32) : [],
    });
  }

  private onBytes(chunk: Uint8Array): void {
    const results = this.decoder.push(chunk);
    for (const result of results) {
      if (!result.ok) continue;
      const message = result.message;
      if (
        message.op !== "HELLO_REQ" &&
        message.op !== "MOVE" &&
        message.op !== "STOP" &&
        message.op !== "QUERY_ACTION" &&
        message.op !== "PING"
      )
        continue;
      // The memory link delivers each host write as one chunk: keep the bytes exactly as sent.
      this.received.push({ bytes: results.length === 1 ? Uint8Array.from(chunk) : encodeFrame(message), message });
      this.beforeFrame?.(message);
      if (this.mute) continue;
      const cached = this.replyCache.get(message.seq);
      const reply = cached ?? this.encodeReply(message);
      this.replyCache.set(message.seq, reply);
      const lose = this.loseReplies.get(message.op) ?? 0;
      if (lose > 0) {
        this.loseReplies.set(message.op, lose - 1);
        continue;
      }
      this.end.write(reply);
    }
  }

  private encodeReply(m: HostMessage): Uint8Array {
    const ackSeq = m.seq;
    const seq = this.nextSeq();
    switch (m.op) {
      case "HELLO_REQ":
        return encodeFrame({
          op: "HELLO",
          seq,
          ackSeq,
          firmwareVersion: "scripted-1",
          protocolVersion: PROTOCOL_VERSION,
          bootId: this.bootId,
          statusRateHz: Math.round(1000 / this.statusIntervalMs),
          watchdogMs: this.watchdogMs,
          axes: this.axes,
        });
      case "PING":
      case "STOP":
        return encodeFrame({ op: "ACK", seq, ackSeq });
      case "MOVE": {
        // Before the action table, as the firmware does: this boot may have forgotten a MOVE that ran in an earlier one.
        if (m.expectBootId !== this.bootId) {
          this.bootMismatches.push(m.actionId);
          return encodeFrame({
            op: "NACK",
            seq,
            ackSeq,
            code: "BOOT_MISMATCH",
            reason: `MOVE expects boot ${m.expectBootId}; device is in boot ${this.bootId}`,
          });
        }
        const known = this.records.get(m.actionId);
        if (known) return encodeFrame({ op: "ACTION", seq, ackSeq, record: known, detail: "duplicate" });
        if (this.nackMoves)
          return encodeFrame({ op: "NACK", seq, ackSeq, code: this.nackMoves.code, reason: this.nackMoves.reason });
        const record: WireActionRecord = { actionId: m.actionId, state: "executing", moved: true };
        this.records.set(m.actionId, record);
        this.executions.set(m.actionId, (this.executions.get(m.actionId) ?? 0) + 1);
        return encodeFrame({ op: "ACTION", seq, ackSeq, record, detail: "" });
      }
      case "QUERY_ACTION": {
        let record = this.records.get(m.actionId);
        if (!record && m.voidIfUnknown) {
          record = { actionId: m.actionId, state: "voided", moved: false };
          this.records.set(m.actionId, record);
        }
        return encodeFrame({
          op: "ACTION",
          seq,
          ackSeq,
          record: record ?? { actionId: m.actionId, state: "unknown", moved: undefined },
          detail: "",
        });
      }
    }
  }

  private send(message: Message): void {
    this.end.write(encodeFrame(message));
  }

  private nextSeq(): number {
    this.seq = (this.seq % 0xffff) + 1;
    return this.seq;
  }
}
