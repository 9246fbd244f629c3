import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { DeviceSession } from "../../../firmware-sim/DeviceSession.js";
import { MemoryEffects } from "../../../firmware-sim/EffectsLog.js";
import { FaultPlan, NO_FAULTS } from "../../../firmware-sim/faults.js";
import { realClock } from "../../../firmware-sim/Clock.js";
import { SimulatedArm } from "../../../firmware-sim/SimulatedArm.js";
import { actuatorsOf } from "../../../src/config/actuators.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { SerialTransport } from "../../../src/transport/serial/SerialTransport.js";
import { createMemoryLinkPair } from "../../../src/transport/link/MemoryLink.js";
import { FrameDecoder, type Message } from "../../../src/protocol/serial/index.js";
import { scriptedRig } from "./scriptedRig.js";

const config = loadConfig();
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/*
 * The MOVE runs, its reply is lost, the device reboots, and the host's resend
 * (same bytes: same seq, same action id, same expectBootId) reaches the new
 * boot before any STATUS from it does. The status-freshness guard cannot see
 * that reboot; the device's boot check must refuse the resend.
 */
describe("MOVE resent to a device that rebooted after running it", () => {
  it("scripted device: the resend is refused with NACK BOOT_MISMATCH, runs once, ends link_error, and stays unknown", async () => {
    const { device, transport } = scriptedRig(config, cleanups, {
      statusMs: 20,
      transport: { ackTimeoutMs: 120, maxResends: 3, completionPollMs: 10_000 },
    });
    await transport.open();
    const bootAtSend = device.bootId;
    device.loseReplies.set("MOVE", 1);
    device.beforeFrame = (message) => {
      if (message.op !== "MOVE" || device.framesOf("MOVE").length !== 2) return;
      // Power cycle just before the resend lands; the new boot has not streamed yet.
      device.streamStatus = false;
      device.reboot();
    };

    const end1 = await transport.runMotion(
      { actionId: "a-boot-check", targets: { elbow: 0.5 }, speed: 0.5 },
      AbortSignal.timeout(10_000),
    );

    const moves = device.framesOf("MOVE");
    expect(moves).toHaveLength(2);
    expect(Buffer.from(moves[1]!.bytes).equals(Buffer.from(moves[0]!.bytes))).toBe(true);
    expect(moves[0]!.message.expectBootId).toBe(bootAtSend);
    expect(device.bootMismatches).toEqual(["a-boot-check"]);
    expect(device.executions.get("a-boot-check")).toBe(1);
    expect(end1).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_DEVICE_REBOOTED" } });

    // The refusal proves only that the resend did nothing: the outcome stays unknown and is never voided.
    const asked = await transport.queryAction("a-boot-check", {
      voidIfUnknown: true,
      signal: AbortSignal.timeout(5000),
    });
    expect(asked).toMatchObject({ state: "unknown", moved: undefined });
    expect(device.records.has("a-boot-check")).toBe(false);
    device.streamStatus = true;
    const later = await transport.queryAction("a-boot-check", {
      voidIfUnknown: true,
      signal: AbortSignal.timeout(5000),
    });
    expect(later).toMatchObject({ state: "unknown", moved: undefined });
    expect(device.records.has("a-boot-check")).toBe(false);
  });

  it("firmware-sim in process: the effects log shows exactly one motion_start and the BOOT_MISMATCH resend logs nothing", async () => {
    const logger = pino({ level: "silent" });
    const clock = realClock();
    const faults = new FaultPlan(11, NO_FAULTS);
    const effects = new MemoryEffects();
    const arm = new SimulatedArm({
      axes: actuatorsOf(config),
      clock,
      faults,
      effects,
      motionTime: { kind: "fixed", ms: 3000 },
      logger,
      bootMs: 0,
    });
    const session = new DeviceSession({
      arm,
      clock,
      faults,
      firmwareVersion: "sim-in-process",
      logger,
      statusHz: 50,
      watchdogMs: 0,
      ackDelayMs: 0,
    });
    const { host, device: end } = createMemoryLinkPair();
    const fromHost = new FrameDecoder();
    const fromDevice = new FrameDecoder();
    const moveSeqs: number[] = [];
    const deviceReplies: Message[] = [];
    let lostMoveReply = false;
    let powerCut = false;
    session.attach((bytes) => {
      // Nothing leaves a device while its power is cut (the sim would report the interrupted motion).
      if (powerCut) return;
      const results = fromDevice.push(bytes);
      const result = results[0];
      if (results.length === 1 && result?.ok && result.message.op !== "STATUS") {
        deviceReplies.push(result.message);
        // Lose the reply to the first MOVE on the wire.
        if (!lostMoveReply && result.message.op === "ACTION" && result.message.ackSeq === moveSeqs[0]) {
          lostMoveReply = true;
          return;
        }
      }
      end.write(bytes);
    });
    const unsubscribe = end.onData((chunk) => {
      for (const r of fromHost.push(chunk)) {
        if (!r.ok || r.message.op !== "MOVE") continue;
        moveSeqs.push(r.message.seq);
        // The resend: the device power-cycles just before it arrives.
        if (moveSeqs.length === 2) {
          powerCut = true;
          arm.reboot();
          powerCut = false;
        }
      }
      session.receive(chunk);
    });
    const transport = new SerialTransport(config, host, { ackTimeoutMs: 150, maxResends: 3, completionPollMs: 10_000 });
    cleanups.push(async () => {
      await transport.close();
      unsubscribe();
      session.close();
      arm.close();
    });
    await transport.open();

    const result = await transport.runMotion(
      { actionId: "a-sim-boot", targets: { elbow: 0.4 }, speed: 1 },
      AbortSignal.timeout(10_000),
    );

    expect(moveSeqs).toHaveLength(2);
    expect(moveSeqs[1]).toBe(moveSeqs[0]);
    expect(deviceReplies.filter((m) => m.op === "NACK")).toMatchObject([
      { code: "BOOT_MISMATCH", ackSeq: moveSeqs[0] },
    ]);
    const forAction = effects.events.filter((e) => e.action_id === "a-sim-boot").map((e) => e.event);
    expect(forAction.filter((e) => e === "motion_start")).toHaveLength(1);
    expect(forAction).not.toContain("duplicate_refused");
    expect(effects.events.map((e) => e.event)).toEqual(["motion_start", "motion_end", "reboot"]);
    expect(result).toMatchObject({ kind: "link_error", error: { code: "ARMB_ERR_DEVICE_REBOOTED" } });
    const asked = await transport.queryAction("a-sim-boot", { voidIfUnknown: true, signal: AbortSignal.timeout(5000) });
    expect(asked).toMatchObject({ state: "unknown" });
  });
});
