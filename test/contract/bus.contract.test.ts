import { startBusSimulator, type RunningBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { overlapsIn } from "../../firmware-sim/effectsJudge.js";
import { createServoBusTransport } from "../../src/transport/bus/index.js";
import { BUS_PROTOCOLS, protocolNamed } from "../../src/protocol/bus/index.js";
import { busTestConfig } from "../support/busTestConfig.js";
import { transportContract } from "./transportContract.js";

const motionStarts = (effects: MemoryEffects): number =>
  effects.events.filter((e) => e.event === "motion_start").length;

for (const protocol of BUS_PROTOCOLS) {
  transportContract(
    `servo bus ${protocol} (firmware-sim --bus over TCP)`,
    async ({ reconnect }) => {
      const config = busTestConfig(protocol);
      const effects = new MemoryEffects();
      const sim = await startBusSimulator({ bus: protocol, armConfig: config, link: "tcp", port: 0, seed: 7, effects });
      const transport = createServoBusTransport(config, sim.link, { reconnect });
      await transport.open(AbortSignal.timeout(5000));
      const otherEffects = new MemoryEffects();
      let other: RunningBusSimulator | undefined;
      return {
        config,
        transport,
        motionStarts: () => motionStarts(effects),
        // Overlaps, and motions cut short by another goal (a bus preempts silently).
        conflicts: () =>
          overlapsIn(effects.events) +
          effects.events.filter((e) => e.event === "motion_end" && e.detail.startsWith("preempted")).length,
        faults: {
          dropLink: (ms) => sim.interruptLink(ms),
          // The servo supply drops; the USB adapter (here the TCP link) stays up: the servos go silent.
          powerLoss: async (ms) => sim.bus.powerLoss(ms),
          replaceWithOtherDevice: async () => {
            // The same ids on the same port, but servos of another model: another arm.
            const models = Object.values(protocolNamed(protocol).table.modelNumbers);
            await sim.close();
            other = await startBusSimulator({
              bus: protocol,
              armConfig: config,
              link: "tcp",
              port: Number(new URL(sim.link).port),
              seed: 8,
              effects: otherEffects,
              modelNumber: models[1] ?? 1,
            });
          },
          otherDeviceMotions: () =>
            motionStarts(otherEffects) + [...(other?.bus.servos.values() ?? [])].filter((s) => s.torque).length,
        },
        close: async () => {
          await transport.close();
          await sim.close();
          await other?.close();
        },
      };
    },
    { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_2: 0.4 } },
    {
      idleDropMs: 600,
      midMotion: { move: { elbow: 0.4 }, speed: 0.5, dropAfterMs: 150, dropMs: 900 },
      // Longer than stale_after_ms: the bus goes silent, the link is lost, and the servos come back with torque off.
      powerLoss: { move: { elbow: 0.4 }, speed: 0.2, afterMs: 400, outageMs: 800 },
    },
  );
}
