import { describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import type { KeepOutZone } from "../../src/config/envelopeConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { EnvelopeModel } from "../../src/safety/EnvelopeModel.js";
import { placedVolumes, type PlacedShape } from "../../src/safety/placedVolumes.js";
import { DenseEnvelopeJudge } from "../support/denseEnvelopeJudge.js";
import { testConfig } from "../support/testConfig.js";

/**
 * The envelope with bodies on the default simulated arm (UR5e-sized, link
 * volumes from UR's collision meshes, a pedestal and a small gripper):
 * the issue's cases, each judged again by the independent dense judge.
 */
const shipped = testConfig();
const kin = armKinematicsOf(shipped)!;
const names = kin.jointNames;
const HOME: Record<string, number> = Object.fromEntries(shipped.arm.joints.map((j) => [j.name, j.home] as const));
const vector = (pose: Readonly<Record<string, number>>): number[] => names.map((n) => pose[n]!);
const withWorkspace = (patch: Partial<NonNullable<ArmConfig["workspace"]>>): ArmConfig => ({
  ...shipped,
  workspace: { ...shipped.workspace!, ...patch },
});

/** The lowest point of a placed volume. */
function lowest(s: PlacedShape): number {
  if (s.kind === "capsule") return Math.min(s.a[2], s.b[2]) - s.radius;
  return s.center[2] - s.axes.reduce((sum, axis, i) => sum + Math.abs(axis[2]) * s.half[i]!, 0);
}

describe("link volumes against the floor", () => {
  // From home: upper arm down, forearm level, wrist turned up. The forearm's volume is the lowest part of the arm
  // along the way, 7 cm below its own frame line and below every link frame.
  const target = { shoulder_lift: 0.64, elbow: -0.08, wrist_1: -2.26, wrist_2: 0.13 };
  const end: Record<string, number> = { ...HOME, ...target };
  const model = EnvelopeModel.of(shipped)!;
  const path = (n: number): Record<string, number>[] =>
    Array.from({ length: n + 1 }, (_, s) =>
      Object.fromEntries(names.map((k) => [k, HOME[k]! + (s / n) * (end[k]! - HOME[k]!)])),
    );
  const lowestOf = (link: string): number =>
    Math.min(
      ...path(400).map((pose) =>
        Math.min(
          ...placedVolumes(model, pose)!
            .filter((v) => v.link === link)
            .map((v) => lowest(v.shape)),
        ),
      ),
    );
  const lowestFrame = Math.min(
    ...path(400).map((pose) =>
      Math.min(
        ...kin.chain
          .frames(vector(pose))
          .links.filter((_, i) => kin.chain.linkMoves[i])
          .map((m) => m[14]!),
      ),
    ),
  );
  const forearmLow = lowestOf("forearm_link");
  // The forearm's radius: the half thickness of its box across its length (its link frame's y), which is what hangs
  // below the frame line while the forearm is level.
  const forearm = kin.bodies.volumes.find((v) => v.link === "forearm_link")!;
  const radius = forearm.shape.kind === "box" ? forearm.shape.half[1] : 0;

  it("a joint motion whose link frames all stay above floor_z but whose forearm volume dips through it is refused, naming the link", () => {
    const floorZ = forearmLow + 0.015;
    expect(lowestFrame).toBeGreaterThan(floorZ + 0.04);
    const config = withWorkspace({ floorZ });
    const verdict = checkMotionEnvelope(config, HOME, target, "move_joints");
    expect(verdict).toMatchObject({ ok: false, code: "ARMB_ERR_ENVELOPE_VIOLATION", link: "forearm_link" });
    if (verdict.ok) return;
    expect(verdict.contact).toMatchObject({
      link: "forearm_link",
      part: "volume",
      obstacle: { kind: "floor", name: "floor_z" },
      frame: "base_link",
    });
    expect(verdict.contact!.clearance_m).toBeLessThan(0.001);
    expect(verdict.contact!.at).toBeGreaterThan(0);
    expect(verdict.contact!.volume?.kind).toBe("box");
    expect(verdict.issues[0]!.message).toMatch(/^move_joints: the motion would take forearm_link to \(.*floor_z/);
    // The judge agrees there is a contact on that path.
    expect(new DenseEnvelopeJudge(config).contactAlong(vector(HOME), vector(end), 400)).toMatch(
      /^forearm_link below the floor/,
    );
  });

  it("the same motion with the floor lowered by the forearm's radius is accepted", () => {
    const config = withWorkspace({ floorZ: forearmLow + 0.015 - radius });
    expect(radius).toBeGreaterThan(0.05);
    expect(checkMotionEnvelope(config, HOME, target, "move_joints").ok).toBe(true);
    expect(new DenseEnvelopeJudge(config).contactAlong(vector(HOME), vector(end), 400)).toBeUndefined();
  });
});

describe("keep-out zones", () => {
  // Shoulder lift and elbow only: both turn about axes parallel to the base's y, so no point of the arm changes
  // its y along the path, and the arm's largest y is the same all the way.
  const target = { shoulder_lift: -1.2, elbow: 1.6 };
  const model = EnvelopeModel.of(shipped)!;
  const ymax = Math.max(
    ...placedVolumes(model, HOME)!
      .filter((v) => kin.bodies.volumes.find((b) => b.link === v.link)!.ref >= 0)
      .map(({ shape: s }) =>
        s.kind === "capsule"
          ? Math.max(s.a[1], s.b[1]) + s.radius
          : s.center[1] + s.axes.reduce((sum, axis, i) => sum + Math.abs(axis[1]) * s.half[i]!, 0),
      ),
  );
  const wall = (minY: number): KeepOutZone => ({
    name: "monitor",
    kind: "box",
    min: [-1, minY, -0.4],
    max: [1, minY + 0.3, 1.2],
  });

  it("a path crossing a keep-out box is refused, naming the link, the zone, where and the clearance; nothing is certified past it", () => {
    // A 6 cm cube round where the tool is half way: the start and the end are clear of it.
    const mid = { ...HOME, shoulder_lift: -0.85, elbow: 1.3 };
    const tip = kin.chain.tip(vector(mid));
    const cube: KeepOutZone = {
      name: "cube",
      kind: "box",
      min: [tip[12]! - 0.03, tip[13]! - 0.03, tip[14]! - 0.03],
      max: [tip[12]! + 0.03, tip[13]! + 0.03, tip[14]! + 0.03],
    };
    const config = withWorkspace({ keepOut: [cube] });
    const judge = new DenseEnvelopeJudge(config);
    expect(judge.contactAt(vector(HOME))).toBeUndefined();
    expect(judge.contactAt(vector({ ...HOME, ...target }))).toBeUndefined();
    const verdict = checkMotionEnvelope(config, HOME, target, "move_joints");
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.code).toBe("ARMB_ERR_ENVELOPE_VIOLATION");
    expect(verdict.contact).toMatchObject({ obstacle: { kind: "keep_out", name: "cube" }, part: "volume" });
    expect(verdict.contact!.at).toBeGreaterThan(0);
    expect(verdict.contact!.at).toBeLessThan(0.5);
    expect(verdict.issues[0]!.message).toContain("keep_out zone cube");
  });

  it("a wall 1 cm beside the whole path is accepted; 2 cm into it, refused", () => {
    const beside = withWorkspace({ keepOut: [wall(ymax + 0.01)] });
    expect(checkMotionEnvelope(beside, HOME, target, "move_joints").ok).toBe(true);
    expect(
      new DenseEnvelopeJudge(beside).contactAlong(vector(HOME), vector({ ...HOME, ...target }), 200),
    ).toBeUndefined();
    const into = withWorkspace({ keepOut: [wall(ymax - 0.02)] });
    const verdict = checkMotionEnvelope(into, HOME, target, "move_joints");
    expect(verdict).toMatchObject({
      ok: false,
      code: "ARMB_ERR_ENVELOPE_VIOLATION",
      contact: { obstacle: { kind: "keep_out", name: "monitor" }, at: 0 },
    });
  });

  it("a vertical cylinder (a post) works the same way", () => {
    const mid = { ...HOME, shoulder_lift: -0.85, elbow: 1.3 };
    const tip = kin.chain.tip(vector(mid));
    const post: KeepOutZone = {
      name: "post",
      kind: "cylinder",
      center: [tip[12]!, tip[13]!],
      radius: 0.03,
      zMin: -0.4,
      zMax: 1.2,
    };
    const verdict = checkMotionEnvelope(
      withWorkspace({ keepOut: [post] }),
      HOME,
      { shoulder_lift: -1.2, elbow: 1.6 },
      "move_joints",
    );
    expect(verdict).toMatchObject({ ok: false, contact: { obstacle: { kind: "keep_out", name: "post" } } });
  });
});

describe("self-collision", () => {
  it("a configuration that folds the wrist into the upper arm is refused as a self-collision, naming both links", () => {
    const target = { elbow: 2.59, wrist_1: 0.68, wrist_2: -1.31 };
    const verdict = checkMotionEnvelope(shipped, HOME, target, "move_joints");
    expect(verdict).toMatchObject({
      ok: false,
      code: "ARMB_ERR_SELF_COLLISION",
      link: "wrist_2_link",
      contact: { obstacle: { kind: "link", name: "upper_arm_link" } },
    });
    if (verdict.ok) return;
    expect(verdict.contact!.volume).toBeDefined();
    expect(verdict.contact!.other_volume).toBeDefined();
    expect(verdict.issues[0]!.message).toMatch(
      /^move_joints: the motion would bring wrist_2_link to .* from upper_arm_link/,
    );
    // The judge finds the two volumes inside each other at the end.
    expect(new DenseEnvelopeJudge(shipped).contactAt(vector({ ...HOME, ...target }))).toMatch(
      /wrist_2_link into upper_arm_link|upper_arm_link into wrist_2_link/,
    );
  });

  it("the gripper's fingers touching each other are not a self-collision (workspace.allowed_contacts); without that entry the pair, touching in every configuration, is named at start and left unchecked", () => {
    const fingers = kin.bodies.volumes.filter((v) => v.link.endsWith("_finger_link"));
    expect(fingers.map((f) => f.swept)).toEqual([true, true]);
    // Bounded over the gripper's whole travel, the two fingers always meet.
    expect(kin.bodies.skipped).toContainEqual({
      links: ["left_finger_link", "right_finger_link"],
      why: "allowed_contacts",
    });
    expect(checkMotionEnvelope(shipped, HOME, { shoulder_pan: 0.3 }, "move_joints").ok).toBe(true);

    const strict = withWorkspace({
      allowedContacts: shipped.workspace!.allowedContacts.filter(([a]) => a !== "left_finger_link"),
    });
    const model = EnvelopeModel.of(strict)!;
    // Touching everywhere, the pair is not checked (it would refuse everything) — and start-up says so.
    expect(model.alwaysInContact.map((pair) => [...pair].sort())).toContainEqual([
      "left_finger_link",
      "right_finger_link",
    ]);
    expect(checkMotionEnvelope(strict, HOME, { shoulder_pan: 0.3 }, "move_joints").ok).toBe(true);
  });

  it("adjacent links are never checked against each other; a pair listed in allowed_contacts is not either", () => {
    const skipped = new Map(kin.bodies.skipped.map((p) => [p.links.join("/"), p.why]));
    expect(skipped.get("upper_arm_link/forearm_link")).toBe("adjacent");
    expect(skipped.get("wrist_1_link/wrist_3_link")).toBe("allowed_contacts");
    expect(skipped.get("wrist_3_link/gripper_link")).toBe("rigid");
  });
});
