import { describe, expect, it } from "vitest";
import { axisReport, reachedQuestion, reportsReached } from "../../console/poseAgainstTarget.js";
import type { ArmAxis } from "../../console/wire.js";

const wrist2: ArmAxis = {
  name: "wrist_2",
  kind: "joint",
  min: -3.14,
  max: 3.14,
  home: 0,
  unit: "rad",
  tolerance: 0.01,
};
const gripper: ArmAxis = {
  name: "gripper",
  kind: "gripper",
  min: 0,
  max: 1,
  home: 1,
  unit: "fraction",
  tolerance: 0.02,
};

// The unknown card's words for where the arm reports an axis against its target, and when "reached" needs a second step.
describe("the pose the arm reports, against the target", () => {
  it.each([
    { reported: 0.45, from: 0, stale: false, text: "wrist_2: 0.450 rad of 0.900: short by 0.450", reached: false },
    {
      reported: 0.895,
      from: 0,
      stale: false,
      text: "wrist_2: 0.895 rad of 0.900: at the target (within 0.010)",
      reached: true,
    },
    { reported: 1.2, from: 0, stale: false, text: "wrist_2: 1.200 rad of 0.900: past it by 0.300", reached: false },
    { reported: -0.2, from: 0, stale: false, text: "wrist_2: -0.200 rad of 0.900: short by 1.100", reached: false },
    {
      reported: 0.45,
      from: undefined,
      stale: false,
      text: "wrist_2: 0.450 rad of 0.900: off by 0.450",
      reached: false,
    },
    {
      reported: undefined,
      from: 0,
      stale: false,
      text: "wrist_2: target 0.900: no reading from the arm",
      reached: false,
    },
    {
      reported: 0.9,
      from: 0,
      stale: true,
      text: "wrist_2: 0.900 rad of 0.900 (last seen, not now): at the target (within 0.010)",
      reached: false,
    },
  ])("$text", ({ reported, from, stale, text, reached }) => {
    const r = axisReport(wrist2, reported, 0.9, from, stale);
    expect(r.text).toBe(text);
    expect(reportsReached([r])).toBe(reached);
  });

  it("moving down to a lower target, stopping above it is short", () => {
    expect(axisReport(wrist2, 0.5, 0.2, 0.8, false).text).toBe("wrist_2: 0.500 rad of 0.200: short by 0.300");
  });

  it("the gripper's scale has no unit and its own tolerance", () => {
    expect(axisReport(gripper, 0.39, 0.4, 1, false).text).toBe("gripper: 0.390 of 0.400: at the target (within 0.020)");
  });

  it("asks to confirm only the axes the report does not put at the target", () => {
    const q = reachedQuestion([axisReport(wrist2, 0.45, 0.9, 0, false), axisReport(gripper, 0.4, 0.4, 1, false)]);
    expect(q).toBe("The arm reports wrist_2 short of the target \u2014 confirm you see it there, at the target.");
  });

  it("an old report is still told, and said to be old; one at the target but old is doubtful too", () => {
    expect(reachedQuestion([axisReport(wrist2, 0.45, 0.9, 0, true)])).toBe(
      "The arm reports wrist_2 short of the target (its last report, not now) \u2014 confirm you see it there, at the target.",
    );
    expect(reachedQuestion([axisReport(wrist2, 0.9, 0.9, 0, true)])).toBe(
      "The arm's report of wrist_2 at the target is old \u2014 confirm you see it there, at the target.",
    );
  });
});
