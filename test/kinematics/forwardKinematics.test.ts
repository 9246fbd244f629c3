import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/config/packageRoot.js";
import { KinematicChain } from "../../src/kinematics/KinematicChain.js";
import { parseUrdf } from "../../src/kinematics/parseUrdf.js";

/**
 * The independent source of truth: Universal Robots' published DH table for
 * the UR5e ("DH parameters for calculations of kinematics and dynamics",
 * universal-robots.com/articles/ur/application-installation/dh-parameters-for-calculations-of-kinematics-and-dynamics/),
 * composed here with plain arithmetic as standard DH, A_i = Rz(θi)·Tz(di)·Tx(ai)·Rx(αi).
 * The URDF under test (config/urdf/sim-arm.urdf, the default simulated arm)
 * goes through XML parsing, rpy → rotation, joint axes and gl-matrix: none of
 * that is used here.
 */
const UR5E_DH = {
  d: [0.1625, 0, 0, 0.1333, 0.0997, 0.0996],
  a: [0, -0.425, -0.3922, 0, 0, 0],
  alpha: [Math.PI / 2, 0, 0, Math.PI / 2, -Math.PI / 2, 0],
};

type M = number[][];
const mul = (A: M, B: M): M => A.map((row) => B[0]!.map((_, j) => row.reduce((s, v, k) => s + v * B[k]![j]!, 0)));
function dhForward(q: readonly number[]): M {
  let T: M = [
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [0, 0, 1, 0],
    [0, 0, 0, 1],
  ];
  for (let i = 0; i < 6; i++) {
    const th = q[i]!,
      d = UR5E_DH.d[i]!,
      a = UR5E_DH.a[i]!,
      al = UR5E_DH.alpha[i]!;
    const ct = Math.cos(th),
      st = Math.sin(th),
      ca = Math.cos(al),
      sa = Math.sin(al);
    T = mul(T, [
      [ct, -st * ca, st * sa, a * ct],
      [st, ct * ca, -ct * sa, a * st],
      [0, sa, ca, d],
      [0, 0, 0, 1],
    ]);
  }
  return T;
}

const urdfPath = join(packageRoot(), "config", "urdf", "sim-arm.urdf");
const chain = new KinematicChain(parseUrdf(readFileSync(urdfPath, "utf8"), urdfPath), "base_link", "tool0", urdfPath);
/** Column-major gl-matrix element (row r, column c). */
const at = (m: Float64Array, r: number, c: number): number => m[c * 4 + r]!;

describe("forward kinematics of the shipped sim-arm URDF against the UR5e's published DH table", () => {
  it("the zero pose: the flange at (a2 + a3, −(d4 + d6), d1 − d5), UR's documented zero", () => {
    const tip = chain.tip([0, 0, 0, 0, 0, 0]);
    expect(at(tip, 0, 3)).toBeCloseTo(-0.425 - 0.3922, 9);
    expect(at(tip, 1, 3)).toBeCloseTo(-(0.1333 + 0.0996), 9);
    expect(at(tip, 2, 3)).toBeCloseTo(0.1625 - 0.0997, 9);
  });

  it("every joint vector: the flange pose (position and rotation) matches the DH product to 1e-9", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }), { minLength: 6, maxLength: 6 }),
        (q) => {
          const tip = chain.tip(q);
          const ref = dhForward(q);
          for (let r = 0; r < 3; r++)
            for (let c = 0; c < 4; c++) expect(Math.abs(at(tip, r, c) - ref[r]![c]!)).toBeLessThan(1e-9);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("the chain names the config's joints in order, with the config's limits", () => {
    expect(chain.variables.map((v) => v.name)).toEqual([
      "shoulder_pan",
      "shoulder_lift",
      "elbow",
      "wrist_1",
      "wrist_2",
      "wrist_3",
    ]);
    expect(chain.variables[2]).toMatchObject({ lower: -2.6, upper: 2.6 });
  });
});

describe("forward kinematics: joint types", () => {
  const urdf = `<?xml version="1.0"?>
  <robot name="t">
    <link name="world"/><link name="base"/><link name="slider"/><link name="arm"/><link name="tip"/>
    <joint name="mount" type="fixed"><parent link="world"/><child link="base"/><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/></joint>
    <joint name="lift" type="prismatic"><parent link="base"/><child link="slider"/><axis xyz="0 0 2"/><limit lower="0" upper="0.5"/></joint>
    <joint name="spin" type="continuous"><parent link="slider"/><child link="arm"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
    <joint name="tool" type="fixed"><parent link="arm"/><child link="tip"/><origin xyz="0.2 0 0"/></joint>
  </robot>`;
  const c = new KinematicChain(parseUrdf(urdf, "inline"), "world", "tip", "inline");

  it("prismatic slides along its (normalised) axis, continuous rotates, fixed origins compose with rpy", () => {
    const tip = c.tip([0.3, Math.PI / 2]);
    // mount: +1 in x, yaw 90°; lift 0.3 up; spin 90° more; the tool arm 0.2 along the rotated x (now −x in world).
    expect(at(tip, 0, 3)).toBeCloseTo(1 - 0.2, 12);
    expect(at(tip, 1, 3)).toBeCloseTo(0, 12);
    expect(at(tip, 2, 3)).toBeCloseTo(0.4, 12);
    expect(c.variables.map((v) => [v.name, v.type])).toEqual([
      ["lift", "prismatic"],
      ["spin", "revolute"],
    ]);
  });

  it("rpy is roll about x, then pitch about y, then yaw about z, fixed axes (R = Rz·Ry·Rx, the URDF spec)", () => {
    const [r, p, y] = [0.3, -0.4, 0.5];
    const one = new KinematicChain(
      parseUrdf(
        `<robot name="o"><link name="a"/><link name="b"/><link name="c"/>
        <joint name="f" type="fixed"><parent link="a"/><child link="b"/><origin xyz="0 0 0" rpy="${r} ${p} ${y}"/></joint>
        <joint name="s" type="prismatic"><parent link="b"/><child link="c"/><axis xyz="1 0 0"/><limit lower="0" upper="1"/></joint></robot>`,
        "o",
      ),
      "a",
      "c",
      "o",
    );
    const Rx: M = [
      [1, 0, 0],
      [0, Math.cos(r), -Math.sin(r)],
      [0, Math.sin(r), Math.cos(r)],
    ];
    const Ry: M = [
      [Math.cos(p), 0, Math.sin(p)],
      [0, 1, 0],
      [-Math.sin(p), 0, Math.cos(p)],
    ];
    const Rz: M = [
      [Math.cos(y), -Math.sin(y), 0],
      [Math.sin(y), Math.cos(y), 0],
      [0, 0, 1],
    ];
    const R = mul(mul(Rz, Ry), Rx);
    const tip = one.tip([1]);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(at(tip, i, j)).toBeCloseTo(R[i]![j]!, 12);
    // The slide runs along b's x axis, i.e. R's first column.
    for (let i = 0; i < 3; i++) expect(at(tip, i, 3)).toBeCloseTo(R[i]![0]!, 12);
  });

  it("links fixed to the base are named frames, with their pose; links that move are not", () => {
    expect([...c.fixedFrames.keys()].sort()).toEqual(["base", "world"]);
    const c2 = new KinematicChain(parseUrdf(urdf, "inline"), "base", "tip", "inline");
    expect([...c2.fixedFrames.keys()].sort()).toEqual(["base", "world"]);
    // world seen from base: base is at x = 1 yawed 90°, so world's origin is at (0, 1, 0) in base.
    const w = c2.fixedFrames.get("world")!;
    expect(at(w, 0, 3)).toBeCloseTo(0, 12);
    expect(at(w, 1, 3)).toBeCloseTo(1, 12);
  });
});
