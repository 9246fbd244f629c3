import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { positionOf, quaternionOf } from "../../src/kinematics/rigidTransform.js";
import { solveIk } from "../../src/kinematics/solveIk.js";
import { mulberry32 } from "../../src/random/mulberry32.js";

const ARMS = [
  { name: "sim-arm (6 axes, full pose)", urdf: "sim-arm.urdf", tip: "tool0" },
  { name: "SO-101 (5 axes, position)", urdf: "so101.urdf", tip: "gripper_frame_link" },
  { name: "Koch v1.1 (5 axes, position)", urdf: "koch-v1.1.urdf", tip: "tool_link" },
] as const;

function chainOf(file: string, tip: string): KinematicChain {
  const path = join(packageRoot(), "config", "urdf", file);
  return new KinematicChain(parseUrdf(readFileSync(path, "utf8"), path), "base_link", tip, path);
}

const dist = (a: readonly number[], b: readonly number[]): number =>
  Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
/** Angle between two orientations, from their quaternions. */
function angleBetween(a: Float64Array, b: Float64Array): number {
  const qa = quaternionOf(a),
    qb = quaternionOf(b);
  const dot = Math.abs(qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w);
  return 2 * Math.acos(Math.min(1, dot));
}

describe.each(ARMS)("IK round trips on the shipped $name URDF", ({ urdf, tip }) => {
  const chain = chainOf(urdf, tip);
  const full = chain.dof >= 6;
  const random = mulberry32(2024);
  const randomJoints = (): Float64Array =>
    Float64Array.from(chain.variables, (v) => v.lower + random() * (v.upper - v.lower));

  it("random reachable targets, solved from a nearby current pose (a Cartesian nudge): ≥ 99.5 % solved, each within 1 mm (and 1 mrad for a full pose) by FK, inside the limits", () => {
    const N = 400;
    let solved = 0;
    for (let i = 0; i < N; i++) {
      const qt = randomJoints();
      const goal = chain.tip(qt);
      // Up to ±0.4 rad per joint from the target's joints, kept inside the limits.
      const current = qt.map((v, k) =>
        Math.min(chain.variables[k]!.upper, Math.max(chain.variables[k]!.lower, v + (random() - 0.5) * 0.8)),
      );
      const r = solveIk(chain, { position: positionOf(goal), orientation: full ? goal : undefined }, current);
      if (!r.ok) continue;
      solved++;
      const reached = chain.tip(r.q);
      expect(dist(positionOf(reached), positionOf(goal))).toBeLessThan(0.001);
      if (full) expect(angleBetween(reached, goal)).toBeLessThan(0.001);
      r.q.forEach((v, k) => {
        expect(v).toBeGreaterThanOrEqual(chain.variables[k]!.lower);
        expect(v).toBeLessThanOrEqual(chain.variables[k]!.upper);
      });
    }
    expect(solved / N).toBeGreaterThanOrEqual(0.995);
  });

  it("random reachable targets from an unrelated current pose: ≥ 98 % solved, every solution within 1 mm by FK", () => {
    let solved = 0;
    for (let i = 0; i < 150; i++) {
      const goal = chain.tip(randomJoints());
      const r = solveIk(chain, { position: positionOf(goal), orientation: full ? goal : undefined }, randomJoints());
      if (!r.ok) continue;
      solved++;
      expect(dist(positionOf(chain.tip(r.q)), positionOf(goal))).toBeLessThan(0.001);
    }
    // The precise rate from far-off starts is a benchmark figure (npm run bench:ik); on these fixed samples, ≥ 98 %.
    expect(solved / 150).toBeGreaterThanOrEqual(0.98);
  });

  it("a target beyond reach is refused, naming the closest point the solver reached (on the reach boundary, toward the target)", () => {
    const far: [number, number, number] = [3, 0.5, 0.2];
    const r = solveIk(chain, { position: far }, randomJoints());
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const reached = positionOf(chain.tip(r.q));
    expect(dist(reached, r.closest)).toBeLessThan(1e-9);
    // The closest point lies between the base and the target, much nearer the target than the base is.
    expect(dist(r.closest, far)).toBeLessThan(dist([0, 0, 0], far) - 0.2);
  });
});

describe("IK prefers the solution nearest the current joints", () => {
  it("a small Cartesian step from a pose moves every joint only a little (the same branch, not a flip)", () => {
    const chain = chainOf("sim-arm.urdf", "tool0");
    const current = Float64Array.from([0.3, -0.8, 1.4, -0.6, 1.57, 0.2]);
    const here = chain.tip(current);
    const p = positionOf(here);
    const r = solveIk(chain, { position: [p[0] + 0.02, p[1] - 0.01, p[2] + 0.015], orientation: here }, current);
    expect(r.ok).toBe(true);
    for (let k = 0; k < 6; k++) expect(Math.abs(r.q[k]! - current[k]!)).toBeLessThan(0.2);
  });
});
