import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { DeviceSession } from "../../firmware-sim/DeviceSession.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan } from "../../firmware-sim/faults.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { FrameDecoder, REPLY_OPS, type Message } from "../../src/protocol/serial/index.js";
import { VECTORS } from "../protocol/serial/goldenVectors.js";
import { ManualClock } from "./ManualClock.js";
import { AXES } from "./simulatedArmHarness.js";

/** A device whose boot id is the one the golden frames expect (any non-zero id when they expect none). */
class GoldenBoot extends FaultPlan {
  constructor(private readonly bootId: number | undefined) {
    super(1);
  }

  override nextBootId(previous?: number): number {
    return this.bootId ?? super.nextBootId(previous);
  }
}

/** Feeds golden frames to firmware-sim's session (in memory) and collects what it answers. */
function deviceAnswers(hex: string, bootId?: number, effects = new MemoryEffects()): Message[] {
  const clock = new ManualClock();
  const logger = pino({ level: "silent" });
  const faults = new GoldenBoot(bootId);
  const arm = new SimulatedArm({ axes: AXES, clock, faults, effects, motionTime: { kind: "profile" }, logger });
  const session = new DeviceSession({
    arm,
    clock,
    faults,
    firmwareVersion: "golden",
    logger,
    statusHz: 0,
    watchdogMs: 0,
    ackDelayMs: 0,
  });
  const decoder = new FrameDecoder();
  const out: Message[] = [];
  session.attach((bytes) => {
    for (const r of decoder.push(bytes)) if (r.ok) out.push(r.message);
  });
  session.receive(Buffer.from(hex, "hex"));
  session.close();
  arm.close();
  return out;
}

describe("firmware-sim against the golden vectors", () => {
  const hostFrames = VECTORS.valid.filter((v) => !REPLY_OPS[v.message.op] && v.message.op !== "STATUS");
  const deviceFrames = VECTORS.valid.filter((v) => REPLY_OPS[v.message.op] || v.message.op === "STATUS");

  it.each(hostFrames.map((v) => [v.name, v] as const))(
    "accepts host frame %s and answers it exactly once",
    (_name, vector) => {
      const replies = deviceAnswers(vector.hex, vector.message.op === "MOVE" ? vector.message.expectBootId : undefined);
      expect(replies).toHaveLength(1);
      expect(replies[0]).toMatchObject({ ackSeq: vector.message.seq });
      expect(replies[0]!.op).not.toBe("NACK");
    },
  );

  const moves = hostFrames.flatMap((v) =>
    v.message.op === "MOVE" ? [{ name: v.name, hex: v.hex, message: v.message }] : [],
  );
  it.each(moves.map((v) => [v.name, v] as const))(
    "refuses host frame %s in another boot with NACK BOOT_MISMATCH, logging nothing",
    (_name, vector) => {
      const effects = new MemoryEffects();
      const replies = deviceAnswers(vector.hex, vector.message.expectBootId + 1, effects);
      expect(replies).toMatchObject([{ op: "NACK", code: "BOOT_MISMATCH", ackSeq: vector.message.seq }]);
      expect(effects.events).toEqual([]);
    },
  );

  it.each(deviceFrames.map((v) => [v.name, v] as const))(
    "refuses device frame %s from a host with NACK UNKNOWN_OP",
    (_name, vector) => {
      expect(deviceAnswers(vector.hex)).toMatchObject([{ op: "NACK", code: "UNKNOWN_OP", ackSeq: vector.message.seq }]);
    },
  );

  it.each(VECTORS.invalid.map((v) => [v.name, v] as const))(
    "handles invalid frame %s: NACK only when the CRC held",
    (_name, vector) => {
      const replies = deviceAnswers(vector.hex);
      if (vector.trustedSeq === null) expect(replies).toEqual([]);
      else expect(replies).toMatchObject([{ op: "NACK", ackSeq: vector.trustedSeq }]);
    },
  );
});
