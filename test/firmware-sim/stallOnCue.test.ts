import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { MemoryEffects } from "../../firmware-sim/EffectsLog.js";
import { FaultPlan } from "../../firmware-sim/faults.js";
import { SimulatedArm } from "../../firmware-sim/SimulatedArm.js";
import { parseSimArgs } from "../../firmware-sim/simOptions.js";
import { AXES, axisIndex } from "./simulatedArmHarness.js";
import { ManualClock } from "./ManualClock.js";

// --stall-joint: the demo's deterministic way to make the arm end a motion
// short of its target after moving (which the bridge must report unknown).
function armWithCue(stallJoints: readonly string[]) {
  const clock = new ManualClock();
  const effects = new MemoryEffects();
  const arm = new SimulatedArm({
    axes: AXES,
    clock,
    faults: new FaultPlan(1),
    effects,
    motionTime: { kind: "profile" },
    logger: pino({ level: "silent" }),
    stallJoints,
  });
  return { arm, clock, effects };
}

describe("stall on cue (--stall-joint)", () => {
  it("stalls the next motion driving the named axis half-way, once", () => {
    const { arm, clock, effects } = armWithCue(["wrist_3"]);
    const W3 = axisIndex("wrist_3");
    const PAN = axisIndex("shoulder_pan");
    arm.move({ actionId: "other", speed: 1, durationMs: 0, targets: [{ axis: PAN, position: 0.5 }] });
    arm.move({ actionId: "cued", speed: 1, durationMs: 0, targets: [{ axis: W3, position: 1 }] });
    clock.advance(3000);
    arm.move({ actionId: "again", speed: 1, durationMs: 0, targets: [{ axis: W3, position: 0 }] });
    clock.advance(3000);
    const ends = new Map(effects.events.flatMap((e) => (e.event === "motion_end" ? [[e.action_id, e] as const] : [])));
    expect(ends.get("other")?.outcome).toBe("reached");
    expect(ends.get("cued")?.outcome).toBe("stalled");
    expect(ends.get("cued")?.to.wrist_3).toBeGreaterThan(0.05);
    expect(ends.get("cued")?.to.wrist_3).toBeLessThan(0.95);
    expect(ends.get("again")?.outcome).toBe("reached");
  });

  it("refuses a name that is not an axis of the arm, by code", () => {
    expect(() => armWithCue(["wrist_9"])).toThrow(expect.objectContaining({ code: "ARMB_ERR_CONFIG_INVALID" }));
  });

  it("is parsed from a comma-separated flag", () => {
    const parsed = parseSimArgs(["--link", "tcp", "--stall-joint", "wrist_3,elbow"]);
    expect(parsed.kind === "options" && parsed.options.stallJoints).toEqual(["wrist_3", "elbow"]);
  });
});
