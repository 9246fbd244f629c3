import type { ArmConfig } from "../../../src/config/ArmConfig.js";
import type { MotionCommand } from "../../../src/transport/Transport.js";
import { FakeArm as TimedFakeArm, type FakeArmOptions } from "../../support/FakeArm.js";

/** How the next motion ends: reaches its target, or stalls halfway (→ the executor says `unknown`). */
export type FakeEnding = "reach" | "stall_after_moving";

/**
 * The in-memory arm for route tests: test/support's FakeArm (one link
 * lifecycle, honest halts) whose motions end at once unless `motionMs` says
 * otherwise, each as the next of `nextEndings` says (default: reach). Not a
 * simulator: firmware-sim is used for end-to-end tests.
 */
export class FakeArm extends TimedFakeArm {
  readonly nextEndings: FakeEnding[];

  constructor(config: ArmConfig, options: Omit<FakeArmOptions, "behaviour"> = {}) {
    const endings: FakeEnding[] = [];
    super(config, {
      motionMs: () => 0,
      ...options,
      behaviour: (_command: MotionCommand) => (endings.shift() === "stall_after_moving" ? "stall_midway" : "reach"),
    });
    // The queue the behaviour reads is the one tests push to.
    this.nextEndings = endings;
  }
}
