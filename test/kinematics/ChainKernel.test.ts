import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";
import { mulberry32 } from "../../src/random/mulberry32.js";

const ARMS = [
  { urdf: "sim-arm.urdf", tip: "tool0" },
  { urdf: "so101.urdf", tip: "gripper_frame_link" },
  { urdf: "koch-v1.1.urdf", tip: "tool_link" },
] as const;

/**
 * The IK solver's allocation-free kernel against the chain's gl-matrix FK
 * (itself checked against the UR5e DH table), and its analytic Jacobian
 * against central finite differences of that FK.
 */
describe.each(ARMS)("ChainKernel on $urdf", ({ urdf, tip }) => {
  const path = join(packageRoot(), "config", "urdf", urdf);
  const chain = new KinematicChain(parseUrdf(readFileSync(path, "utf8"), path), "base_link", tip, path);
  const random = mulberry32(99);
  const randomJoints = (): Float64Array =>
    Float64Array.from(chain.variables, (v) => v.lower + random() * (v.upper - v.lower));

  it("forward: the tip pose equals the chain's FK to 1e-12", () => {
    for (let i = 0; i < 200; i++) {
      const q = randomJoints();
      chain.kernel.forward(q);
      const ref = chain.tip(q);
      for (let r = 0; r < 3; r++)
        for (let c = 0; c < 4; c++) expect(chain.kernel.tip[4 * r + c]).toBeCloseTo(ref[4 * c + r]!, 12);
    }
  });

  it("linkPositions: every chain link's origin equals the chain's FK frames to 1e-12", () => {
    for (let i = 0; i < 200; i++) {
      const q = randomJoints();
      chain.kernel.forward(q);
      const got = chain.kernel.linkPositions();
      const ref = chain.frames(q).links;
      expect(got.length).toBe(3 * ref.length);
      for (const [l, m] of ref.entries())
        for (let a = 0; a < 3; a++) expect(got[3 * l + a]).toBeCloseTo(m[12 + a]!, 12);
    }
  });

  it("jacobian: each column matches the finite-difference derivative of the tip position and rotation", () => {
    const n = chain.dof,
      h = 1e-6,
      J = new Float64Array(6 * n);
    for (let i = 0; i < 50; i++) {
      const q = randomJoints();
      chain.kernel.forward(q);
      chain.kernel.jacobian(J, 6, 1);
      for (let k = 0; k < n; k++) {
        const qp = Float64Array.from(q),
          qm = Float64Array.from(q);
        qp[k]! += h;
        qm[k]! -= h;
        const tp = chain.tip(qp),
          tm = chain.tip(qm);
        for (let a = 0; a < 3; a++)
          expect(J[a * n + k]).toBeCloseTo(((tp[12 + a] ?? 0) - (tm[12 + a] ?? 0)) / (2 * h), 6);
        // Angular velocity from dR·Rᵀ (its skew part), column-major R.
        const R = chain.tip(q);
        const dR = (r: number, c: number): number => ((tp[4 * c + r] ?? 0) - (tm[4 * c + r] ?? 0)) / (2 * h);
        const W = (r: number, c: number): number =>
          dR(r, 0) * R[4 * 0 + c]! + dR(r, 1) * R[4 * 1 + c]! + dR(r, 2) * R[4 * 2 + c]!;
        expect(J[3 * n + k]).toBeCloseTo(W(2, 1), 6);
        expect(J[4 * n + k]).toBeCloseTo(W(0, 2), 6);
        expect(J[5 * n + k]).toBeCloseTo(W(1, 0), 6);
      }
    }
  });
});
