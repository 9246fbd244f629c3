import { describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import type { InFlightMotion } from "../../src/safety/InFlightMotions.js";
import { DenseEnvelopeJudge } from "../support/denseEnvelopeJudge.js";
import { testConfig } from "../support/testConfig.js";

/**
 * The sim arm's forearm as two boxes fitted to UR's forearm.stl (the elbow
 * housing with the tapering tube, and the narrow end under wrist 1) instead
 * of one box as wide as the elbow housing all the way to the wrist. Judged by
 * the bridge's envelope and by the independent dense judge.
 */
const shipped = testConfig();
const kin = armKinematicsOf(shipped)!;
const names = kin.jointNames;
const HOME: Record<string, number> = Object.fromEntries(shipped.arm.joints.map((j) => [j.name, j.home] as const));
const vector = (pose: Readonly<Record<string, number>>): number[] => names.map((n) => pose[n]!);

/** The forearm as it was: the bounding box of the whole mesh, grown 1 mm. */
const oneFatBox: ArmConfig = {
  ...shipped,
  linkVolumes: {
    ...shipped.linkVolumes,
    forearm_link: [{ shape: "box", xyz: [-0.1864, -0.0001, 0.0055], rpy: [0, 0, 0], size: [0.4914, 0.1178, 0.112] }],
  },
};

// wrist_2 swung from home, its outcome unknown (so counted in flight over its whole path), then another joint moved beside it.
const swing: InFlightMotion = { actionId: "w2-swing", from: { wrist_2: 0 }, to: { wrist_2: -0.45 } };
const besides = [{ shoulder_pan: 0.5 }, { wrist_3: 0.4 }];

describe("the sim arm's forearm: two volumes fitted to the mesh", () => {
  it("is two boxes, the wrist end narrower than the elbow housing", () => {
    const boxes = kin.bodies.volumes.filter((v) => v.link === "forearm_link").map((v) => v.shape);
    expect(boxes).toHaveLength(2);
    const halfWidths = boxes.map((b) => (b.kind === "box" ? b.half[1] : Number.NaN)).sort((a, b) => a - b);
    // The mesh is 118 mm wide at the elbow housing and 79 mm at the wrist end (each grown 1 mm a side).
    expect(halfWidths[0]).toBeLessThan(0.041);
    expect(halfWidths[1]).toBeGreaterThan(0.058);
  });

  it.each(besides)(
    "a wrist_2 swing near home in flight no longer blocks a move beside it (%o); with the one fat box it did",
    (move) => {
      const verdict = checkMotionEnvelope(shipped, HOME, move, "move_joints", [swing]);
      expect(verdict.ok).toBe(true);
      const before = checkMotionEnvelope(oneFatBox, HOME, move, "move_joints", [swing]);
      expect(before).toMatchObject({ ok: false, code: "ARMB_ERR_SELF_COLLISION" });
      if (!before.ok)
        expect(before.contact).toMatchObject({
          link: "wrist_2_link",
          obstacle: { kind: "link", name: "forearm_link" },
        });
      // The judge finds no contact anywhere in the box of both motions' progress (corners and centre lines, densely).
      const judge = new DenseEnvelopeJudge(shipped);
      for (const w of [0, 0.25, 0.5, 0.75, 1]) {
        const from = { ...HOME, wrist_2: w * -0.45 };
        expect(judge.contactAlong(vector(from), vector({ ...from, ...move }), 200)).toBeUndefined();
      }
    },
  );

  it("a real contact is still refused: the forearm driven into the table, naming the link and the floor", () => {
    const target = { shoulder_lift: 0.9, elbow: 0, wrist_1: 1.5 };
    const verdict = checkMotionEnvelope(shipped, HOME, target, "move_joints");
    expect(verdict).toMatchObject({ ok: false, code: "ARMB_ERR_ENVELOPE_VIOLATION", link: "forearm_link" });
    if (verdict.ok) return;
    expect(verdict.contact).toMatchObject({
      link: "forearm_link",
      part: "volume",
      obstacle: { kind: "floor", name: "floor_z" },
    });
    // Not a box corner grazing the table: at the end of the path the judge has the forearm through it.
    expect(new DenseEnvelopeJudge(shipped).contactAt(vector({ ...HOME, ...target }))).toMatch(
      /^forearm_link below the floor/,
    );
  });
});
