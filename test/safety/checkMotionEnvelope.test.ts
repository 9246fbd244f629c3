import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import type { ChainFrames } from "../../src/kinematics/KinematicChain.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { framesOnly, testConfig } from "../support/testConfig.js";

// Link frames only: the oracle below checks frames; test/safety/linkVolumes*.test.ts check the volumes.
const config = framesOnly(testConfig());
const kin = armKinematicsOf(config)!;
const { chain } = kin;
const ws = config.workspace!;
const HOME: Record<string, number> = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home] as const));
const byName = (q: readonly number[]): Record<string, number> =>
  Object.fromEntries(kin.jointNames.map((n, k) => [n, q[k]!]));

let scratch: ChainFrames | undefined;
/** Where each moving link frame is outside the envelope (no sampling margin: the true envelope). */
function outside(q: readonly number[]): string | undefined {
  const frames = (scratch = chain.frames(q, scratch));
  for (const [i, m] of frames.links.entries()) {
    if (!chain.linkMoves[i]) continue;
    const p = [m[12]!, m[13]!, m[14]!];
    if (ws.floorZ !== undefined && p[2]! < ws.floorZ) return `${chain.linkNames[i]} below the floor`;
    for (let a = 0; a < 3; a++)
      if (p[a]! < ws.keepIn!.min[a]! || p[a]! > ws.keepIn!.max[a]!) return `${chain.linkNames[i]} outside keep_in`;
  }
  return undefined;
}

describe("checkMotionEnvelope on the default simulated arm", () => {
  const jointVector = fc.tuple(...chain.variables.map((v) => fc.double({ min: v.lower, max: v.upper, noNaN: true })));

  it("property: no accepted motion's path leaves the envelope, sampled independently at 3000 points (every link frame, not only the tip)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(jointVector, jointVector, (from, to) => {
        const verdict = checkMotionEnvelope(config, byName(from), byName(to), "move_joints");
        if (!verdict.ok) return;
        accepted++;
        const n = 3000;
        let first: string | undefined;
        for (let s = 0; s <= n && first === undefined; s++) {
          const where = outside(from.map((v, k) => v + (s / n) * (to[k]! - v)));
          if (where !== undefined) first = `${where} at ${s / n}`;
        }
        expect(first).toBeUndefined();
      }),
      { numRuns: 150, seed: 11 },
    );
    // Random moves across the full range often leave it; enough must pass for the property to mean something.
    expect(accepted).toBeGreaterThan(10);
  }, 120_000);

  it("property: a motion whose sampled path does leave the envelope is never accepted", () => {
    fc.assert(
      fc.property(jointVector, jointVector, (from, to) => {
        const n = 400;
        let leaves = false;
        for (let s = 0; s <= n && !leaves; s++)
          leaves = outside(from.map((v, k) => v + (s / n) * (to[k]! - v))) !== undefined;
        if (leaves) expect(checkMotionEnvelope(config, byName(from), byName(to), "move_joints").ok).toBe(false);
      }),
      { numRuns: 150, seed: 12 },
    );
  });

  it("a motion that dips below the floor is rejected naming the first offending link, where it would be, and the tool", () => {
    // From home, lifting the shoulder down and straightening the elbow swings the wrist below the pedestal top and on below the floor.
    const verdict = checkMotionEnvelope(config, HOME, { shoulder_lift: 1.6, elbow: 0 }, "move_to_named_pose");
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.code).toBe("ARMB_ERR_ENVELOPE_VIOLATION");
    expect(verdict.link).toMatch(/_link$/);
    expect(verdict.point![2]).toBeLessThan(ws.floorZ! + 0.001 + 1e-9);
    expect(verdict.issues[0]!.message).toMatch(/^move_to_named_pose: the motion would take \w+ to \(/);
    expect(verdict.issues[0]!.message).toContain("floor_z");
  });

  it("a move far from every wall passes after a handful of evaluations, not one every 2 mm of travel", () => {
    const verdict = checkMotionEnvelope(config, HOME, { shoulder_pan: 1.0 }, "move_joints");
    expect(verdict.ok).toBe(true);
    // Pan of 1 rad sweeps the tool ~0.6 m; 2 mm samples would be ~550. Each frame is ≥ 0.2 m from the walls,
    // so conservative advancement certifies the path in a few steps.
    if (verdict.ok) expect(verdict.samples).toBeLessThan(50);
  });

  it("gripper-only targets need no pose and pass; chain targets without a pose are refused (ARMB_ERR_POSE_UNKNOWN)", () => {
    expect(checkMotionEnvelope(config, undefined, { gripper: 0.2 }, "set_gripper").ok).toBe(true);
    const verdict = checkMotionEnvelope(config, undefined, { elbow: 1.1 }, "move_joints");
    expect(verdict).toMatchObject({ ok: false, code: "ARMB_ERR_POSE_UNKNOWN" });
  });

  it("an arm already outside is told so: nothing it is asked leaves from outside", () => {
    const below: Record<string, number> = { ...HOME, shoulder_lift: 1.6, elbow: 0 };
    expect(outside(kin.jointNames.map((n) => below[n]!))).toBeDefined();
    const verdict = checkMotionEnvelope(config, below, { elbow: 0.1 }, "move_joints");
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.issues[0]!.message).toMatch(/already outside/);
  });

  it("max_step_m bounds how far the tool may travel in one call", () => {
    const tight: ArmConfig = { ...config, workspace: { ...ws, maxStepM: 0.05 } };
    expect(checkMotionEnvelope(tight, HOME, { shoulder_pan: 0.02 }, "move_joints").ok).toBe(true);
    const verdict = checkMotionEnvelope(tight, HOME, { shoulder_pan: 0.5 }, "move_joints");
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.issues[0]!.message).toMatch(/max_step_m 0.05/);
  });

  it("a travel refused inside the check's margin says so, with numbers that show it under max_step_m (never 'more than')", () => {
    const tight: ArmConfig = { ...config, workspace: { ...ws, maxStepM: 0.3 } };
    const pan = HOME.shoulder_pan!;
    const ok = (to: number): boolean => checkMotionEnvelope(tight, HOME, { shoulder_pan: to }, "move_joints").ok;
    // The largest pan the check admits, to 1e-7 rad: a little past it the tip travels just under 0.3 m, inside the margin.
    let lo = pan,
      hi = pan + 2;
    expect(ok(lo) && !ok(hi)).toBe(true);
    while (hi - lo > 1e-7) {
      const mid = (lo + hi) / 2;
      if (ok(mid)) lo = mid;
      else hi = mid;
    }
    const verdict = checkMotionEnvelope(tight, HOME, { shoulder_pan: hi + 1e-5 }, "move_joints");
    expect(verdict.ok).toBe(false);
    const message = verdict.ok ? "" : verdict.issues[0]!.message;
    const m = /travel (\S+) m from where it started, (.+?) max_step_m (\S+);/.exec(message);
    expect(m, message).not.toBeNull();
    expect(m![2]).toBe("within 1.0 mm of");
    expect(Number(m![1])).toBeLessThan(Number(m![3]));
    expect(m![3]).toBe("0.3");
  });

  it("with no workspace configured, nothing is checked", () => {
    const open: ArmConfig = { ...config, workspace: undefined };
    expect(checkMotionEnvelope(open, HOME, { shoulder_lift: 1.6, elbow: 0 }, "move_joints").ok).toBe(true);
  });
});
