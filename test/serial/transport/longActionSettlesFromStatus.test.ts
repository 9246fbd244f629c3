import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { realClock } from "../../../firmware-sim/Clock.js";
import { DeviceSession } from "../../../firmware-sim/DeviceSession.js";
import { MemoryEffects } from "../../../firmware-sim/EffectsLog.js";
import { FaultPlan, NO_FAULTS } from "../../../firmware-sim/faults.js";
import { SimulatedArm } from "../../../firmware-sim/SimulatedArm.js";
import { actuatorsOf } from "../../../src/config/actuators.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { createMemoryLinkPair } from "../../../src/transport/link/MemoryLink.js";
import { FrameDecoder, type Message } from "../../../src/protocol/serial/index.js";
import { SerialTransport } from "../../../src/transport/serial/SerialTransport.js";

const config = loadConfig();
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/*
 * docs/serial-protocol.md §3.6: STATUS carries the records the device most
 * recently *updated*. Read as "most recently created", a long action that
 * outlives 16 newer short ones never shows its end in STATUS, and the bridge
 * learns of it only through a QUERY_ACTION poll.
 */
describe("a long action among more than 16 newer short ones", () => {
  it("settles from STATUS alone: no QUERY_ACTION is ever sent", async () => {
    const logger = pino({ level: "silent" });
    const clock = realClock();
    const faults = new FaultPlan(7, NO_FAULTS);
    const effects = new MemoryEffects();
    const arm = new SimulatedArm({
      axes: actuatorsOf(config),
      clock,
      faults,
      effects,
      motionTime: { kind: "profile" },
      logger,
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
    const { host, device } = createMemoryLinkPair();
    session.attach((bytes) => device.write(bytes));
    const fromHost = new FrameDecoder();
    const hostOps: Message["op"][] = [];
    const unsubscribe = device.onData((chunk) => {
      for (const r of fromHost.push(chunk)) if (r.ok) hostOps.push(r.message.op);
      session.receive(chunk);
    });
    // Polls far beyond the test's length: only STATUS can end these waits.
    const transport = new SerialTransport(config, host, { completionPollMs: 600_000 });
    cleanups.push(async () => {
      await transport.close();
      unsubscribe();
      session.close();
      arm.close();
    });
    await transport.open();

    // About 7 s (2 rad at 0.3 rad/s): headroom for the short ones on a loaded machine.
    const long = transport.runMotion(
      { actionId: "long", targets: { shoulder_pan: 2 }, speed: 0.15 },
      AbortSignal.timeout(30_000),
    );
    for (let i = 0; i < 18; i += 1) {
      const short = await transport.runMotion(
        { actionId: `short-${i}`, targets: { elbow: i % 2 === 0 ? 1.01 : 1 }, speed: 1 },
        AbortSignal.timeout(10_000),
      );
      expect(short).toMatchObject({ kind: "ended", record: { state: "reached" } });
    }
    const started = effects.events.filter((e) => e.event === "motion_start").map((e) => e.action_id);
    const endedBeforeLong = effects.events.some((e) => e.event === "motion_end" && e.action_id === "long");
    // The premise: all 18 short actions were created (and ended) while the long one ran.
    expect(started).toHaveLength(19);
    expect(endedBeforeLong).toBe(false);

    expect(await long).toMatchObject({ kind: "ended", record: { actionId: "long", state: "reached", moved: true } });
    expect(hostOps).not.toContain("QUERY_ACTION");
    expect(effects.events.filter((e) => e.event === "motion_end" && e.action_id === "long")).toMatchObject([
      { outcome: "reached" },
    ]);
  });
});
