import { startSimulator, type RunningSimulator } from "../../firmware-sim/startSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { createSerialTransport } from "../../src/transport/serial/index.js";
import { testConfig } from "../support/testConfig.js";
import { otherArmConfig } from "../support/otherArmConfig.js";
import { overlapsIn } from "../../firmware-sim/effectsJudge.js";
import { transportContract } from "./transportContract.js";

const motionStarts = (effects: MemoryEffects): number =>
  effects.events.filter((e) => e.event === "motion_start").length;

transportContract(
  "serial (firmware-sim over TCP)",
  async ({ reconnect }) => {
    const config = testConfig();
    const effects = new MemoryEffects();
    const sim = await startSimulator({ armConfig: config, link: "tcp", port: 0, seed: 7, effects });
    const transport = createSerialTransport(config, sim.link, { reconnect });
    await transport.open(AbortSignal.timeout(5000));
    const otherEffects = new MemoryEffects();
    let other: RunningSimulator | undefined;
    return {
      config,
      transport,
      motionStarts: () => motionStarts(effects),
      conflicts: () => overlapsIn(effects.events),
      faults: {
        dropLink: (ms) => sim.interruptLink(ms),
        // The firmware reboots (a new boot id) and, on TCP, its host connection drops for the outage.
        powerLoss: async (ms) => sim.arm.powerLoss(ms),
        replaceWithOtherDevice: async () => {
          // Firmware whose HELLO reports other limits answers on the same port.
          await sim.close();
          other = await startSimulator({
            armConfig: otherArmConfig(),
            link: "tcp",
            port: Number(new URL(sim.link).port),
            seed: 8,
            effects: otherEffects,
          });
        },
        otherDeviceMotions: () => motionStarts(otherEffects),
      },
      close: async () => {
        await transport.close();
        await sim.close();
        await other?.close();
      },
    };
  },
  // The other joint is the wrist roll: wrist_2 turned beside the elbow's quick move (in flight) comes within the envelope's margin of forearm_link.
  { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_3: 0.4 } },
  {
    idleDropMs: 600,
    // ≈ 0.8 s at speed 0.5: it ends inside a 900 ms outage, before the firmware's 1 s watchdog would halt it.
    midMotion: { move: { elbow: 0.4 }, speed: 0.5, dropAfterMs: 150, dropMs: 900 },
    powerLoss: { move: { elbow: 0.4 }, speed: 0.2, afterMs: 400, outageMs: 700 },
  },
);
