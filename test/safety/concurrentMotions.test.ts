import { describe, expect, it } from "vitest";
import type { ArmConfig } from "../../src/config/ArmConfig.js";
import { armKinematicsOf } from "../../src/kinematics/armKinematics.js";
import type { ChainFrames } from "../../src/kinematics/KinematicChain.js";
import { checkMotionEnvelope } from "../../src/safety/checkMotionEnvelope.js";
import { mulberry32 } from "../../src/random/mulberry32.js";
import { framesOnly, testConfig } from "../support/testConfig.js";

/** The sim arm with a tight box, so that combinations of two motions often leave it. */
// Frames only: these numbers were chosen for link frames; the volumes have their own tests.
const config: ArmConfig = {
  ...framesOnly(testConfig()),
  workspace: {
    frame: undefined,
    keepIn: { min: [-0.85, -0.85, -0.2], max: [0.85, 0.85, 0.95] },
    floorZ: -0.15,
    maxStepM: undefined,
    keepOut: [],
    allowedContacts: [],
  },
};
const kin = armKinematicsOf(config)!;
const { chain } = kin;
const ws = config.workspace!;
const names = kin.jointNames;

let scratch: ChainFrames | undefined;
/** A link frame outside the true envelope (no margin), for joint vector q. */
function outside(q: Float64Array): boolean {
  const frames = (scratch = chain.frames(q, scratch));
  for (const [i, m] of frames.links.entries()) {
    if (!chain.linkMoves[i]) continue;
    if (m[14]! < ws.floorZ!) return true;
    for (let a = 0; a < 3; a++) if (m[12 + a]! < ws.keepIn!.min[a]! || m[12 + a]! > ws.keepIn!.max[a]!) return true;
  }
  return false;
}

interface Pair {
  readonly start: Record<string, number>;
  readonly a: Record<string, number>;
  readonly b: Record<string, number>;
}

/** A random valid start (inside the envelope) and two motions on disjoint random joint sets. */
function randomPair(random: () => number): Pair {
  for (;;) {
    const start = Object.fromEntries(chain.variables.map((v) => [v.name, v.lower + random() * (v.upper - v.lower)]));
    if (!checkMotionEnvelope(config, start, start, "t").ok) continue;
    const order = [...names].sort(() => random() - 0.5);
    const na = 1 + Math.floor(random() * 3),
      nb = 1 + Math.floor(random() * 3);
    const pick = (joints: string[]) =>
      Object.fromEntries(
        joints.map((n) => {
          const v = chain.variables[names.indexOf(n)]!;
          return [n, Math.min(v.upper, Math.max(v.lower, start[n]! + (random() - 0.5) * 1.6))];
        }),
      );
    return { start, a: pick(order.slice(0, na)), b: pick(order.slice(na, na + nb)) };
  }
}

/**
 * Every combination of A at sa and B at sb (their real timing is unknown): a
 * 41×41 grid and 400 random pairs of progress, each judged on the true
 * envelope — ground truth independent of the check's own sampling.
 */
function combinedLeaves(p: Pair, random: () => number): boolean {
  const q = new Float64Array(chain.dof);
  const at = (sa: number, sb: number): boolean => {
    for (const [k, n] of names.entries()) {
      const s0 = p.start[n]!;
      q[k] = n in p.a ? s0 + sa * (p.a[n]! - s0) : n in p.b ? s0 + sb * (p.b[n]! - s0) : s0;
    }
    return outside(q);
  };
  for (let i = 0; i <= 40; i++) for (let j = 0; j <= 40; j++) if (at(i / 40, j / 40)) return true;
  for (let i = 0; i < 400; i++) if (at(random(), random())) return true;
  return false;
}

describe("concurrent disjoint motions: a new motion is checked against the motions in flight", () => {
  it("property: for random pairs (A in flight, then B on other joints) both admitted, no combination of their progress leaves the envelope", () => {
    const random = mulberry32(4242);
    let both = 0;
    for (let i = 0; i < 80; i++) {
      const p = randomPair(random);
      if (!checkMotionEnvelope(config, p.start, p.a, "move_joints").ok) continue;
      if (!checkMotionEnvelope(config, p.start, p.b, "move_joints", [{ actionId: "A", from: p.start, to: p.a }]).ok)
        continue;
      both++;
      expect(combinedLeaves(p, random), JSON.stringify(p)).toBe(false);
    }
    expect(both).toBeGreaterThan(15);
  });

  it("the property can fail: shoulder_lift −1 rad and elbow −1 rad from home are each inside alone, together they lift wrist_2_link through the ceiling — the old check admitted B, the new one refuses it", () => {
    const home = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));
    const p: Pair = { start: home, a: { shoulder_lift: home.shoulder_lift! - 1 }, b: { elbow: home.elbow! - 1 } };
    expect(checkMotionEnvelope(config, home, p.a, "move_joints").ok).toBe(true);
    expect(checkMotionEnvelope(config, home, p.b, "move_joints").ok).toBe(true);
    expect(combinedLeaves(p, mulberry32(1))).toBe(true);
    const verdict = checkMotionEnvelope(config, home, p.b, "move_joints", [{ actionId: "A", from: home, to: p.a }]);
    expect(verdict).toMatchObject({ ok: false, code: "ARMB_ERR_ENVELOPE_VIOLATION" });
    expect(JSON.stringify(verdict)).toContain("in flight");
  });

  it("property: with two motions in flight (A, B) the grid is widened to fit, and a third motion C admitted alongside them never leaves the envelope at any combination of the three", () => {
    const random = mulberry32(777);
    let admitted = 0;
    for (let i = 0; i < 60; i++) {
      const p = randomPair(random);
      const rest = names.filter((n) => !(n in p.a) && !(n in p.b));
      if (rest.length === 0) continue;
      const c = Object.fromEntries(
        rest.slice(0, 1 + Math.floor(random() * rest.length)).map((n) => {
          const v = chain.variables[names.indexOf(n)]!;
          return [n, Math.min(v.upper, Math.max(v.lower, p.start[n]! + (random() - 0.5) * 1.6))];
        }),
      );
      if (!checkMotionEnvelope(config, p.start, p.a, "move_joints").ok) continue;
      if (!checkMotionEnvelope(config, p.start, p.b, "move_joints", [{ actionId: "A", from: p.start, to: p.a }]).ok)
        continue;
      const inFlight = [
        { actionId: "A", from: p.start, to: p.a },
        { actionId: "B", from: p.start, to: p.b },
      ];
      if (!checkMotionEnvelope(config, p.start, c, "move_joints", inFlight).ok) continue;
      admitted++;
      // Ground truth on the true envelope: a 17³ grid of the three progresses plus random ones.
      const q = new Float64Array(chain.dof);
      const at = (sa: number, sb: number, sc: number): boolean => {
        for (const [k, n] of names.entries()) {
          const s0 = p.start[n]!;
          q[k] =
            n in p.a
              ? s0 + sa * (p.a[n]! - s0)
              : n in p.b
                ? s0 + sb * (p.b[n]! - s0)
                : n in c
                  ? s0 + sc * (c[n]! - s0)
                  : s0;
        }
        return outside(q);
      };
      let leaves = false;
      for (let x = 0; x <= 16 && !leaves; x++)
        for (let y = 0; y <= 16 && !leaves; y++)
          for (let z = 0; z <= 16 && !leaves; z++) leaves = at(x / 16, y / 16, z / 16);
      for (let r = 0; r < 500 && !leaves; r++) leaves = at(random(), random(), random());
      expect(leaves, JSON.stringify({ ...p, c })).toBe(false);
    }
    expect(admitted).toBeGreaterThan(5);
  });

  it("the three-motion case can fail: shoulder_pan +1.2, wrist_1 −1.2 and wrist_2 +0.6 from home pass every pairwise check, all three at their ends leave the envelope — so C is refused with both A and B in flight", () => {
    const home = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));
    const a = { shoulder_pan: home.shoulder_pan! + 1.2 },
      b = { wrist_1: home.wrist_1! - 1.2 },
      c = { wrist_2: home.wrist_2! + 0.6 };
    const A = { actionId: "A", from: home, to: a },
      B = { actionId: "B", from: home, to: b };
    expect(checkMotionEnvelope(config, home, a, "move_joints").ok).toBe(true);
    expect(checkMotionEnvelope(config, home, b, "move_joints", [A]).ok).toBe(true);
    expect(checkMotionEnvelope(config, home, c, "move_joints", [A]).ok).toBe(true);
    expect(checkMotionEnvelope(config, home, c, "move_joints", [B]).ok).toBe(true);
    const q = new Float64Array(chain.dof);
    for (const [k, n] of names.entries())
      q[k] = a[n as keyof typeof a] ?? b[n as keyof typeof b] ?? c[n as keyof typeof c] ?? home[n]!;
    expect(outside(q)).toBe(true);
    expect(checkMotionEnvelope(config, home, c, "move_joints", [A, B])).toMatchObject({
      ok: false,
      code: "ARMB_ERR_ENVELOPE_VIOLATION",
    });
  });

  it("a motion in flight whose own joints are also the new motion's is not double-counted (the new targets win), and an empty in-flight list is the plain check", () => {
    const start = Object.fromEntries(config.arm.joints.map((j) => [j.name, j.home]));
    const b = { wrist_2: 0.3 };
    const plain = checkMotionEnvelope(config, start, b, "move_joints");
    expect(checkMotionEnvelope(config, start, b, "move_joints", [])).toEqual(plain);
    expect(
      checkMotionEnvelope(config, start, b, "move_joints", [{ actionId: "A", from: start, to: { wrist_2: -0.5 } }]),
    ).toEqual(plain);
  });
});
