import { ArmbridgeError } from "../src/errors.js";
import type { FaultPlan } from "./faults.js";

/** The faults due part-way through one motion. */
export type MidMotionFaults = ReturnType<FaultPlan["midMotion"]>;

/**
 * The faults on cue of the serial device: the next motion of an axis named
 * by --stall-joint stalls half-way, of one named by --power-loss-joint loses
 * power half-way, once each. A cue wins over the seeded faults of its motion.
 */
export class ArmFaultCues {
  readonly #plan: FaultPlan;
  readonly #stallOnCue: Set<string>;
  readonly #powerLossOnCue: Set<string>;

  constructor(
    plan: FaultPlan,
    axisNames: readonly string[],
    cues: {
      readonly stallJoints?: readonly string[] | undefined;
      readonly powerLossJoints?: readonly string[] | undefined;
    },
  ) {
    for (const [flag, list] of [
      ["--stall-joint", cues.stallJoints],
      ["--power-loss-joint", cues.powerLossJoints],
    ] as const) {
      const unknownAxes = (list ?? []).filter((n) => !axisNames.includes(n));
      if (unknownAxes.length > 0)
        throw new ArmbridgeError("ARMB_ERR_CONFIG_INVALID", {
          path: flag,
          issues: `no axis named ${unknownAxes.join(", ")}`,
        });
    }
    this.#plan = plan;
    this.#stallOnCue = new Set(cues.stallJoints ?? []);
    this.#powerLossOnCue = new Set(cues.powerLossJoints ?? []);
  }

  /** The faults of a motion of these axes, and whether it loses power half-way. */
  draw(axes: readonly number[], nameOf: (axis: number) => string): { faults: MidMotionFaults; powerLoss: boolean } {
    // Drawn even when a stall on cue overrides it, so the seeded faults of later motions stay the same.
    const seeded = this.#plan.midMotion();
    const cued = axes.find((i) => this.#stallOnCue.has(nameOf(i)));
    if (cued !== undefined) this.#stallOnCue.delete(nameOf(cued));
    const powerCued = cued === undefined ? axes.find((i) => this.#powerLossOnCue.delete(nameOf(i))) : undefined;
    if (cued !== undefined)
      return { faults: { stall: { fraction: 0.5, pick: (axes.indexOf(cued) + 0.5) / axes.length } }, powerLoss: false };
    if (powerCued !== undefined) return { faults: {}, powerLoss: true };
    return { faults: seeded, powerLoss: false };
  }
}
