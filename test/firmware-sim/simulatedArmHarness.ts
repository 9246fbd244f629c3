import { pino } from "pino";
import { actuatorsOf } from "../../src/config/actuators.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan, NO_FAULTS, type FaultRates } from "../../firmware-sim/faults.js";
import type { MotionTime } from "../../firmware-sim/motionTime.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { ManualClock } from "./ManualClock.js";

export const AXES = actuatorsOf(loadConfig());
export const axisIndex = (name: string): number => AXES.findIndex((a) => a.name === name);

export function makeArm(options: { rates?: Partial<FaultRates>; seed?: number; motionTime?: MotionTime } = {}) {
  const clock = new ManualClock();
  const effects = new MemoryEffects();
  const arm = new SimulatedArm({
    axes: AXES,
    clock,
    faults: new FaultPlan(options.seed ?? 1, { ...NO_FAULTS, ...options.rates }),
    effects,
    motionTime: options.motionTime ?? { kind: "profile" },
    logger: pino({ level: "silent" }),
  });
  return { arm, clock, effects };
}
