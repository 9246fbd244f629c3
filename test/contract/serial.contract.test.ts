import { startSimulator } from "../../firmware-sim/startSimulator.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { createSerialTransport } from "../../src/transport/serial/index.js";
import { testConfig } from "../support/testConfig.js";
import { overlapsIn } from "../../firmware-sim/effectsJudge.js";
import { transportContract } from "./transportContract.js";

transportContract(
  "serial (firmware-sim over TCP)",
  async () => {
    const config = testConfig();
    const effects = new MemoryEffects();
    const sim = await startSimulator({ armConfig: config, link: "tcp", port: 0, seed: 7, effects });
    const transport = createSerialTransport(config, sim.link);
    await transport.open(AbortSignal.timeout(5000));
    return {
      config,
      transport,
      motionStarts: () => effects.events.filter((e) => e.event === "motion_start").length,
      conflicts: () => overlapsIn(effects.events),
      close: async () => {
        await transport.close();
        await sim.close();
      },
    };
  },
  // otherJointMove turns wrist_3, not wrist_2: with link volumes (#20) a wrist_2 swing while the elbow
  // runs between 1.0 and 1.2 brings wrist_2_link's box within 4 mm of forearm_link's, which the
  // envelope (rightly, for those volumes) refuses alongside a motion in flight; wrist_3 is clear.
  { slowMove: { elbow: 0.4 }, quickMove: { elbow: 1.2 }, otherJointMove: { wrist_3: 0.4 } },
);
