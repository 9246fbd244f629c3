import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { packageRoot } from "../../src/config/packageRoot.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { DenseEnvelopeJudge } from "../support/denseEnvelopeJudge.js";

/**
 * Property: no path the envelope accepts brings a link volume into the floor,
 * out of keep_in, into a keep-out zone or into another link's volume — judged
 * by an independent dense check (DenseEnvelopeJudge: its own FK and its own
 * geometry) at a fine sampling of the path, and with a motion in flight over
 * a grid of both motions' progress. On the three shipped arms, the sim arm
 * with a keep-out box and a post added.
 */
const root = packageRoot();
const simWithZones = ((): ArmConfig => {
  const c = loadConfig(join(root, "config", "sim-arm.yaml"));
  return {
    ...c,
    workspace: {
      ...c.workspace!,
      keepOut: [
        { name: "monitor", kind: "box", min: [-0.75, 0.25, -0.4], max: [-0.45, 0.55, 0.1] },
        { name: "post", kind: "cylinder", center: [0.4, -0.4], radius: 0.05, zMin: -0.4, zMax: 0.6 },
      ],
    },
  };
})();
const ARMS: readonly { readonly name: string; readonly config: ArmConfig; readonly runs: number }[] = [
  { name: "sim arm (with a keep-out box and a post)", config: simWithZones, runs: 100 },
  { name: "SO-101", config: loadConfig(join(root, "config", "so101.yaml")), runs: 120 },
  { name: "Koch v1.1", config: loadConfig(join(root, "config", "koch-follower.yaml")), runs: 120 },
];

describe.each(ARMS)(
  "link volumes on $name: accepted paths judged by an independent dense check",
  ({ config, runs }) => {
    const kin = armKinematicsOf(config)!;
    const judge = new DenseEnvelopeJudge(config);
    const limits = kin.chain.variables;
    const byName = (q: readonly number[]): Record<string, number> =>
      Object.fromEntries(kin.jointNames.map((n, k) => [n, q[k]!]));
    const clamp = (q: readonly number[]): number[] =>
      q.map((v, k) => Math.min(limits[k]!.upper, Math.max(limits[k]!.lower, v)));
    // A start the arm may really stand in: inside the envelope by the judge and by the check.
    const start = fc
      .tuple(...limits.map((v) => fc.double({ min: v.lower, max: v.upper, noNaN: true })))
      .filter((q) => judge.contactAt(q) === undefined && checkMotionEnvelope(config, byName(q), byName(q), "t").ok);
    const step = fc.tuple(...limits.map(() => fc.double({ min: -1.2, max: 1.2, noNaN: true })));
    const moved = fc.tuple(...limits.map(() => fc.boolean()));

    it("property: one motion — accepted paths never meet anything at 300 points along them", () => {
      let accepted = 0,
        refused = 0;
      fc.assert(
        fc.property(start, step, moved, (q0, d, which) => {
          const q1 = clamp(q0.map((v, k) => (which[k] ? v + d[k]! : v)));
          const targets = Object.fromEntries(
            kin.jointNames.filter((_, k) => which[k]).map((n) => [n, q1[kin.jointNames.indexOf(n)]!]),
          );
          if (Object.keys(targets).length === 0) return;
          const verdict = checkMotionEnvelope(config, byName(q0), targets, "move_joints");
          if (!verdict.ok) {
            refused++;
            return;
          }
          accepted++;
          expect(judge.contactAlong(q0, q1, 300)).toBeUndefined();
        }),
        { numRuns: runs, seed: 31 },
      );
      // Both outcomes must occur for the property to mean something.
      expect(accepted).toBeGreaterThan(runs / 5);
      expect(refused).toBeGreaterThan(0);
    }, 180_000);

    it("property: with a motion in flight on other joints — accepted motions never meet anything at any of 21 × 41 combinations of both", () => {
      let accepted = 0;
      fc.assert(
        fc.property(start, step, fc.integer({ min: 1, max: kin.jointNames.length - 1 }), (q0, d, cut) => {
          // A moves the first `cut` joints, B the others.
          const qa = clamp(q0.map((v, k) => (k < cut ? v + d[k]! : v)));
          const qb = clamp(q0.map((v, k) => (k >= cut ? v + d[k]! : v)));
          const a = Object.fromEntries(kin.jointNames.slice(0, cut).map((n, k) => [n, qa[k]!]));
          if (!checkMotionEnvelope(config, byName(q0), a, "move_joints").ok) return;
          const b = Object.fromEntries(kin.jointNames.slice(cut).map((n, i) => [n, qb[cut + i]!]));
          const verdict = checkMotionEnvelope(config, byName(q0), b, "move_joints", [
            { actionId: "A", from: byName(q0), to: a },
          ]);
          if (!verdict.ok) return;
          accepted++;
          for (let i = 0; i <= 20; i++) {
            for (let j = 0; j <= 40; j++) {
              const q = q0.map((v, k) => (k < cut ? v + (i / 20) * (qa[k]! - v) : v + (j / 40) * (qb[k]! - v)));
              expect(judge.contactAt(q)).toBeUndefined();
            }
          }
        }),
        { numRuns: Math.round(runs / 2), seed: 32 },
      );
      expect(accepted).toBeGreaterThan(runs / 20);
    }, 180_000);
  },
);
