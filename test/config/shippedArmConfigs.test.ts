import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { planCartesianMove } from "../../src/kinematics/planCartesianMove.js";
import { positionOf } from "../../src/kinematics/rigidTransform.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { EnvelopeModel } from "../../src/safety/EnvelopeModel.js";
import { createDefaultTools } from "../../src/tools/defaultTools.js";

/** Every shipped arm config: its URDF, chain and envelope as the bridge loads them. */
const SHIPPED = [
  { file: "sim-arm.yaml", urdf: "sim-arm.urdf", dof: 6, wider: [] },
  { file: "so101.yaml", urdf: "so101.urdf", dof: 5, wider: [] },
  // Koch wrist_flex: the URDF's -3.14..0.5 is from ManiSkill's zero, not yet checked against the bus zero (see the yaml).
  { file: "koch-follower.yaml", urdf: "koch-v1.1.urdf", dof: 5, wider: ["wrist_flex"] },
] as const;

describe.each(SHIPPED)("shipped config $file", ({ file, urdf, dof, wider }) => {
  const config = loadConfig(join(packageRoot(), "config", file));
  const kin = armKinematicsOf(config);

  it("names its URDF, base and tip link, and an envelope (keep_in and floor_z)", () => {
    expect(config.arm.urdf).toBe(join(packageRoot(), "config", "urdf", urdf));
    expect(kin).toBeDefined();
    expect(kin!.chain.dof).toBe(dof);
    expect(config.workspace?.keepIn).toBeDefined();
    expect(config.workspace?.floorZ).toBeDefined();
  });

  it(`its URDF's moving joints are exactly the config's joints, and every config range lies inside the URDF's${wider.length ? ` (except ${wider.join(", ")}, documented in the file: IK uses the overlap)` : ""}`, () => {
    const model = parseUrdf(readFileSync(config.arm.urdf!, "utf8"), config.arm.urdf!);
    expect([...kin!.jointNames].sort()).toEqual(config.arm.joints.map((j) => j.name).sort());
    for (const j of config.arm.joints) {
      const u = model.joints.find((x) => x.name === j.name)?.limit;
      expect(u, `${j.name} has URDF limits`).toBeDefined();
      const v = kin!.chain.variables.find((x) => x.name === j.name)!;
      if ((wider as readonly string[]).includes(j.name)) {
        // Wider than the URDF: the chain (and so IK) keeps to the overlap.
        expect([v.lower, v.upper]).toEqual([Math.max(j.min, u!.lower), Math.min(j.max, u!.upper)]);
        expect(j.min < u!.lower || j.max > u!.upper, `${j.name} is listed as wider but is not`).toBe(true);
        continue;
      }
      expect(j.min, `${j.name} min`).toBeGreaterThanOrEqual(u!.lower - 1e-9);
      expect(j.max, `${j.name} max`).toBeLessThanOrEqual(u!.upper + 1e-9);
    }
  });

  it("every moving link of the chain has a collision volume, and no checked pair of volumes touches in every configuration", () => {
    // Each moving joint's frame carries at least one volume (its link's, or a link fixed to it).
    for (const [k, v] of kin!.chain.variables.entries()) expect(kin!.bodies.volumes.some((b) => b.ref === k), `a volume after ${v.name}`).toBe(true);
    expect(EnvelopeModel.of(config)!.alwaysInContact).toEqual([]);
    expect(kin!.bodies.unplaced).toEqual([]);
  });

  it("the envelope contains home (every link frame and volume of the home pose) and a move to every named pose from home stays inside", () => {
    const home = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));
    expect(checkMotionEnvelope(config, home, home, "move_to_named_pose")).toMatchObject({ ok: true });
    for (const [name, pose] of Object.entries(config.arm.namedPoses)) {
      expect(checkMotionEnvelope(config, home, pose, "move_to_named_pose"), name).toMatchObject({ ok: true });
    }
  });

  it(dof >= 6 ? "six axes: move_to_pose is offered (full-pose IK)" : "fewer than six axes: position-only IK — move_to_point is offered, move_to_pose is not, and a point near home is solved", () => {
    const names = createDefaultTools(config).names();
    expect(names).toContain("move_to_point");
    if (dof >= 6) {
      expect(names).toContain("move_to_pose");
      return;
    }
    expect(names).not.toContain("move_to_pose");
    const home = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));
    const p = positionOf(kin!.chain.tip(kin!.jointNames.map((n) => home[n] ?? 0)));
    const plan = planCartesianMove(kin!, { position: [p[0] + 0.02, p[1] + 0.02, p[2] - 0.03], orientation: undefined, frame: undefined, orientationRequired: false }, home, "move_to_point", 0.5);
    expect(plan.refusal).toBeUndefined();
    const reached = positionOf(kin!.chain.tip(kin!.jointNames.map((n) => plan.targets[n] ?? 0)));
    expect(Math.hypot(reached[0] - p[0] - 0.02, reached[1] - p[1] - 0.02, reached[2] - p[2] + 0.03)).toBeLessThan(0.001);
  });
});
