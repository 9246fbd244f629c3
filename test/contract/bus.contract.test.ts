import { startBusSimulator } from "../../firmware-sim/bus/startBusSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { overlapsIn } from "../../firmware-sim/effectsJudge.js";
import { createServoBusTransport } from "../../src/transport/bus/index.js";
import { BUS_PROTOCOLS } from "../../src/transport/bus/protocol/index.js";
import { busTestConfig } from "../support/busTestConfig.js";
import { transportContract } from "./transportContract.js";

for (const protocol of BUS_PROTOCOLS) {
  transportContract(
    `servo bus ${protocol} (firmware-sim --bus over TCP)`,
    async () => {
      const config = busTestConfig(protocol);
      const effects = new MemoryEffects();
      const sim = await startBusSimulator({ bus: protocol, armConfig: config, link: "tcp", port: 0, seed: 7, effects });
      const transport = createServoBusTransport(config, sim.link);
      await transport.open(AbortSignal.timeout(5000));
      return {
        config,
        transport,
        motionStarts: () => effects.events.filter((e) => e.event === "motion_start").length,
        // Overlaps, and motions cut short by another goal (a bus preempts silently).
        conflicts: () => overlapsIn(effects.events) + effects.events.filter((e) => e.event === "motion_end" && e.detail.startsWith("preempted")).length,
        close: async () => {
          await transport.close();
          await sim.close();
        },
      };
    },
    { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_2: 0.4 } },
  );
}
